// Studies: published scaling results next to what scaleout predicts for the same clusters. A study
// file names its source, the plans that describe the published runs, the published numbers and the
// tolerance it holds the predictions to; running it gives one row per published number.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "explore/curves.hpp"
#include "explore/sweep.hpp"

namespace scaleout::sim {

// What a published number measures.
enum class StudyMetric {
  kScalingEfficiency,  // (throughput/N) / (throughput/B at baseline_workers B); 0..1
  kSpeedup,            // throughput at N / throughput at baseline_workers (of baseline_plan)
  kEpochTime,          // seconds for `epochs` epochs of `samples_per_epoch` samples
  kThroughput,         // samples/s
  kMegatronTflops,     // TFLOP/s per device as Narayanan et al. 2021 count them (model-parallel)
  kGoodput,            // expected share of wall time spent on work kept (plans with reliability:)
  kFailuresPerDay,     // expected job failures a day of wall time (plans with reliability:)
  // TFLOP/s per device of model FLOPs: 3 x the forward's (6 N a token and every s x s score),
  // without recomputation, as MFU counts them (model-parallel)
  kModelTflops,
};

// Whether a metric is a share whose errors are counted in points (efficiency, goodput), not in
// percents of the published value.
bool counted_in_points(StudyMetric metric);

const char* metric_name(StudyMetric metric);

struct StudyCase {
  std::string name;
  std::string plan_path;  // resolved against the study file's folder
  int workers = 0;
  std::optional<core::StrategyKind> strategy;  // replaces the plan's
  StudyMetric metric = StudyMetric::kScalingEfficiency;
  int baseline_workers = 0;  // efficiency and speedup: 0 = against one worker (the plan's own)
  // speedup: the plan it is measured against (resolved as plan_path; empty: the case's own plan).
  std::string baseline_plan_path;
  double samples_per_epoch = 0;
  double epochs = 1;
  double published = 0;
  // Efficiency: points (3 = three percentage points); other metrics: percent of the published.
  double tolerance = 0;
  std::string note;  // why the tolerance is what it is, where it is not the study's goal
  // false: a known gap, reported against the tolerance like every prediction but not failing the
  // study (its note says why; required).
  bool held = true;
  // A row the plans were calibrated on: an input, not a prediction. Reported and drawn apart,
  // counted nowhere (its note says what it calibrates; required).
  bool calibration = false;
  int line = 0;
};

// A published claim about which strategy scales better: `better`'s scaling efficiency is above
// `than`'s at every size from `from` workers (to `until`, 0: the largest) where both run.
struct CrossoverClaim {
  core::StrategyKind better = core::StrategyKind::kRing;
  core::StrategyKind than = core::StrategyKind::kPs;
  int from = 1;
  int until = 0;
  std::string source;
  int line = 0;
};

// Where strategies cross over as workers grow on one plan's cluster (analytic engine).
struct CrossoverSweep {
  std::string name;
  std::string plan_path;
  std::vector<int> workers;
  std::vector<core::StrategyKind> strategies;
  std::vector<CrossoverClaim> claims;
  int line = 0;
};

struct Study {
  std::string file;
  std::string name;
  std::string title;
  std::string source;       // the paper or page the published numbers come from
  std::string assumptions;  // what the plans assume beyond the source (free text)
  // A picture of the cases the report embeds (relative to the study file, as the report is
  // written beside it): `scaleout-gui --render-study` draws it. Empty: none.
  std::string chart;
  Engine engine = Engine::kAnalytic;
  // What the predictions aim at, tighter than the tolerance that fails the study (same units);
  // the report counts the predictions within it. 0: none.
  double goal = 0;
  std::vector<StudyCase> cases;
  std::vector<CrossoverSweep> crossovers;
};

// Loads a study file. Throws core::InputError naming the file, line and field for anything
// malformed, and for a plan that does not load (its own error, as the plan loader gives it).
Study load_study(const std::string& path);

struct CaseOutcome {
  StudyCase study_case;
  double predicted = 0;
  double error = 0;     // efficiency: points (predicted - published); others: percent of published
  bool within = false;  // within the tolerance, held or not
  // A prediction: neither a calibration row nor anything else counted apart.
  bool predicts() const { return !study_case.calibration; }
  // Fails the study: a held prediction outside its tolerance.
  bool fails() const { return predicts() && study_case.held && !within; }
  // A speedup predicted on the other side of 1 than the published one (a compressor or strategy
  // said to pay that does not, or the other way round).
  bool wrong_direction() const;
  core::RunResult result;                   // the run at `workers`
  std::optional<core::RunResult> baseline;  // the run at baseline_workers
  std::vector<std::string> warnings;        // the engines' warnings on either run
};

struct ExplainedCrossover {
  Crossover crossing;
  std::string reason;  // what limits the strategy that falls behind, and the other, past it
};

struct ClaimOutcome {
  CrossoverClaim claim;
  bool holds = false;
  std::string detail;  // the sizes checked, or the first size where it fails
};

struct CrossoverOutcome {
  CrossoverSweep sweep;
  Curves curves;
  std::vector<ExplainedCrossover> crossings;
  std::vector<ClaimOutcome> claims;
};

// Loads one `crossovers` entry of a study (the node at `index`). Throws core::InputError.
CrossoverSweep read_crossover_sweep(const YAML::Node& node, const std::string& file,
                                    const std::string& folder, std::size_t index);

// Sweeps, finds the crossings with their reasons, and checks the claims.
CrossoverOutcome run_crossover_sweep(const CrossoverSweep& sweep);

struct StudyOutcome {
  Study study;
  Engine engine = Engine::kAnalytic;
  std::vector<CaseOutcome> cases;
  std::vector<CrossoverOutcome> crossovers;
  // Every held prediction within its tolerance and every crossover claim holding.
  bool passes() const;
};

// The metric from a run and its baseline (nullopt when the metric needs none).
double metric_value(const StudyCase& c, const core::RunResult& run,
                    const std::optional<core::RunResult>& baseline);

// How the predictions fared, calibration rows left out.
struct StudyCounts {
  long predictions = 0;      // rows that are not calibration rows
  long within = 0;           // predictions within their tolerance, held or not
  long within_goal = 0;      // predictions within the study's goal (0 without one)
  long known_gaps = 0;       // predictions not held
  long held_outside = 0;     // held predictions outside their tolerance (the study fails)
  long calibration = 0;      // calibration rows
  long speedups = 0;         // speedup predictions
  long wrong_direction = 0;  // of them, on the other side of 1 than published
};
StudyCounts count_cases(const StudyOutcome& outcome);

// Runs every case with `engine` (the study's own when nullopt). `on_case` (may be empty) is called
// after each case with the number done and the total.
StudyOutcome run_study(const Study& study, std::optional<Engine> engine = std::nullopt,
                       const std::function<void(std::size_t, std::size_t)>& on_case = {});

// The report: a markdown page with the study's source, assumptions and a table of predicted
// against published numbers, and the same as JSON.
std::string study_markdown(const StudyOutcome& outcome);
std::string study_json(const StudyOutcome& outcome);

}  // namespace scaleout::sim
