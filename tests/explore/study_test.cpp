// Studies: the metrics they compare, the files they are written in, and the verdicts they give.
#include "explore/study.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analytic/analytic.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/results/model_parallel_outcome.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

namespace fs = std::filesystem;

core::RunResult run_at(int workers, double throughput) {
  core::RunResult r;
  r.workers = workers;
  r.throughput_samples_per_s = throughput;
  r.scaling_efficiency = 0.5;
  return r;
}

TEST(StudyMetrics, EfficiencyAgainstABaselineIsPerWorkerThroughputOverTheBaselines) {
  StudyCase c;
  c.metric = StudyMetric::kScalingEfficiency;
  c.baseline_workers = 8;
  // 1,000 samples/s on 8 workers is 125 each; 28,000 on 256 is 109.375 each: 87.5%.
  EXPECT_DOUBLE_EQ(metric_value(c, run_at(256, 28000), run_at(8, 1000)), 0.875);
  // Without a baseline: the result's own efficiency (against one worker).
  EXPECT_DOUBLE_EQ(metric_value(c, run_at(256, 28000), std::nullopt), 0.5);
}

TEST(StudyMetrics, SpeedupEpochTimeAndThroughput) {
  StudyCase c;
  c.metric = StudyMetric::kSpeedup;
  EXPECT_DOUBLE_EQ(metric_value(c, run_at(4, 3000), run_at(1, 800)), 3.75);
  c.metric = StudyMetric::kEpochTime;
  c.samples_per_epoch = 50000;
  c.epochs = 5;
  EXPECT_DOUBLE_EQ(metric_value(c, run_at(2, 500), std::nullopt), 500.0);  // 250,000 samples
  c.metric = StudyMetric::kThroughput;
  EXPECT_DOUBLE_EQ(metric_value(c, run_at(2, 500), std::nullopt), 500.0);
}

// Narayanan et al. 2021's TFLOP/s per GPU: 96 B s l h^2 (1 + s/6h + V/16lh) / (time x GPUs), which
// counts full recomputation's second forward. A result of a model-parallel plan whose iteration
// takes 1 ms: l 2, h 64, s 96, V 512, B 8 sequences, 8 GPUs (tensor 2, pipeline 2, data 2).
// A speedup predicted below 1 where the published one is above (or the other way round) is
// counted and said, whatever the tolerance; other metrics have no direction.
TEST(StudyMetrics, ASpeedupOnTheOtherSideOfOneIsAWrongDirection) {
  auto outcome = [](StudyMetric metric, double published, double predicted) {
    CaseOutcome o;
    o.study_case.metric = metric;
    o.study_case.published = published;
    o.predicted = predicted;
    return o;
  };
  StudyOutcome o;
  o.cases = {outcome(StudyMetric::kSpeedup, 1.09, 0.99),    // wrong: slower, published faster
             outcome(StudyMetric::kSpeedup, 0.8, 1.2),      // wrong: faster, published slower
             outcome(StudyMetric::kSpeedup, 1.3, 1.01),     // right, if far
             outcome(StudyMetric::kSpeedup, 1.0, 0.5),      // published even: no direction
             outcome(StudyMetric::kThroughput, 2.0, 0.5)};  // not a speedup
  EXPECT_TRUE(o.cases[0].wrong_direction());
  EXPECT_TRUE(o.cases[1].wrong_direction());
  EXPECT_FALSE(o.cases[2].wrong_direction());
  EXPECT_FALSE(o.cases[3].wrong_direction());
  EXPECT_FALSE(o.cases[4].wrong_direction());
  o.cases[1].study_case.calibration = true;  // an input: counted nowhere
  EXPECT_FALSE(o.cases[1].wrong_direction());
  StudyCounts n = count_cases(o);
  EXPECT_EQ(n.speedups, 3);
  EXPECT_EQ(n.wrong_direction, 1);
}

TEST(StudyMetrics, MegatronTflopsFollowNarayanansCount) {
  core::Plan plan = testing::load_text(
      "megatron-tflops",
      "cluster:\n  name: c\n  devices_per_node: 8\n"
      "  device: { name: X, flops: 100TFLOPS, memory: 80GB }\n"
      "  intra_node: { bandwidth: 100GB/s, latency: 1us }\n"
      "  nic: { bandwidth: 100Gbps, latency: 2us }\n"
      "workload:\n  name: gpt-tiny\n  efficiency: 0.5\n"
      "  transformer: { layers: 2, hidden: 64, heads: 4, sequence: 96, vocabulary: 512 }\n"
      "parallelism: { tensor: 2, pipeline: 2, recompute: full }\n"
      "strategy: { kind: ring }\n"
      "training: { workers: 8, global_batch: 8, gradient_precision: bf16 }\n");
  core::ModelParallelPhases phases;
  phases.step = 1e-3;
  core::RunResult run = core::model_parallel_result(plan, "analytic", phases);
  StudyCase c;
  c.metric = StudyMetric::kMegatronTflops;
  // s/6h = 96 / 384 = 0.25, V/16lh = 512 / 2,048 = 0.25; 96 x 8 x 96 x 2 x 64^2 = 603,979,776;
  // x 1.5 = 905,969,664 FLOPs an iteration, over 1 ms and 8 GPUs: 113,246,208,000 FLOP/s.
  EXPECT_NEAR(metric_value(c, run, std::nullopt), 0.113246208, 1e-15);
  // Model FLOPs, without the recomputed forward: 72 B s l h^2 (1 + s/6h + V/12lh) with V/12lh =
  // 512 / 1,536: 452,984,832 x 19/12 = 717,225,984 FLOPs an iteration, 89,653,248,000 FLOP/s.
  c.metric = StudyMetric::kModelTflops;
  EXPECT_NEAR(metric_value(c, run, std::nullopt), 0.089653248, 1e-15);
  // A data-parallel result has no such figure.
  EXPECT_EQ(metric_value(c, run_at(8, 1000), std::nullopt), 0);
}

class StudyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("scaleout-study-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    write("plan.yaml", "cluster: " + testing::source_path("topologies/v100-ib-switch.yaml") +
                           "\nworkload: " + testing::source_path("models/resnet50.yaml") +
                           "\nstrategy: { kind: ring }\n"
                           "training: { workers: 16, batch_per_worker: 64 }\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }

  // A study of one case; `extra` lines go into the case.
  std::string one_case(const std::string& extra, const std::string& head = "tolerance: 3\n") {
    return write("study.yaml", "study: t\ntitle: T\nsource: S\n" + head +
                                   "cases:\n  - name: c\n    plan: plan.yaml\n    workers: 64\n" +
                                   extra);
  }

  std::string error_of(const std::string& path) {
    try {
      load_study(path);
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(StudyFiles, AStudyAtItsOwnBaselineIsExactlyOneAndAFarNumberIsOutside) {
  // 64 workers against a baseline of 64: efficiency 1 whatever the engine predicts.
  std::string path =
      one_case("    metric: scaling_efficiency\n    baseline_workers: 64\n    published: 0.99\n");
  StudyOutcome o = run_study(load_study(path));
  ASSERT_EQ(o.cases.size(), 1u);
  EXPECT_DOUBLE_EQ(o.cases[0].predicted, 1.0);
  EXPECT_NEAR(o.cases[0].error, 1.0, 1e-9);  // points
  EXPECT_TRUE(o.passes());
  path =
      one_case("    metric: scaling_efficiency\n    baseline_workers: 64\n    published: 0.90\n");
  o = run_study(load_study(path));
  EXPECT_NEAR(o.cases[0].error, 10.0, 1e-9);
  EXPECT_FALSE(o.passes());
  EXPECT_NE(study_markdown(o).find("0 of 1 predictions are within their tolerance. **1 held "
                                   "prediction is outside the tolerance: the study fails.**"),
            std::string::npos)
      << study_markdown(o);
  // The same number as a known gap: reported with its error, counted as outside, not failing.
  path = one_case(
      "    metric: scaling_efficiency\n    baseline_workers: 64\n    published: 0.90\n"
      "    held: false\n    note: why\n");
  o = run_study(load_study(path));
  EXPECT_NEAR(o.cases[0].error, 10.0, 1e-9);
  EXPECT_FALSE(o.cases[0].within);
  EXPECT_TRUE(o.passes());
  EXPECT_NE(study_markdown(o).find("| no (known gap) |"), std::string::npos) << study_markdown(o);
  EXPECT_NE(study_markdown(o).find("0 of 1 predictions are within their tolerance. 1 is a known "
                                   "gap (not held: reported, not failing the study; 1 of them "
                                   "outside"),
            std::string::npos)
      << study_markdown(o);
}

// Counts are of predictions only: a held row, a known gap and a calibration row, each at its own
// baseline (efficiency exactly 1 whatever the engine): errors 1, 10 and 50 points. The
// calibration row is in the table but in no count and not in the median: (1 + 10) / 2 = 5.5.
TEST_F(StudyFiles, CalibrationRowsAreInputsCountedNowhere) {
  std::string row =
      "  - name: %s\n    plan: plan.yaml\n    workers: 64\n"
      "    metric: scaling_efficiency\n    baseline_workers: 64\n";
  auto named = [&row](const std::string& name) {
    std::string r = row;
    return r.replace(r.find("%s"), 2, name);
  };
  std::string path = write(
      "three.yaml", "study: t\ntitle: T\nsource: S\ntolerance: 3\ngoal: 2\ncases:\n" +
                        named("held") + "    published: 0.99\n" + named("gap") +
                        "    published: 0.90\n    held: false\n    note: why\n" + named("input") +
                        "    published: 0.50\n    calibration: true\n"
                        "    note: the compute rate comes from this row\n");
  StudyOutcome o = run_study(load_study(path));
  ASSERT_EQ(o.cases.size(), 3u);
  StudyCounts n = count_cases(o);
  EXPECT_EQ(n.predictions, 2);
  EXPECT_EQ(n.within, 1);
  EXPECT_EQ(n.within_goal, 1);  // the held row's 1 point; not the gap's 10
  EXPECT_EQ(n.known_gaps, 1);
  EXPECT_EQ(n.held_outside, 0);
  EXPECT_EQ(n.calibration, 1);
  EXPECT_TRUE(o.passes());  // the calibration row's 50 points fail nothing
  std::string md = study_markdown(o);
  EXPECT_NE(md.find("| calibration (an input) |"), std::string::npos) << md;
  EXPECT_NE(md.find("1 of 2 predictions are within their tolerance. 1 of 2 are within the goal of "
                    "2 points."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("1 calibration row is an input, counted nowhere."), std::string::npos) << md;
  EXPECT_NE(md.find("Median error on scaling efficiency: 5.5 points."), std::string::npos) << md;
  auto j = nlohmann::json::parse(study_json(o));
  EXPECT_EQ(j["counts"]["predictions"], 2);
  EXPECT_EQ(j["counts"]["calibration"], 1);
  EXPECT_EQ(j["cases"][2]["calibration"], true);
  EXPECT_EQ(j["passes"], true);
}

// A speedup against another plan at the same size (compression against none, say): the case's
// throughput over the other plan's, each plan loaded at the case's workers.
TEST_F(StudyFiles, ASpeedupIsMeasuredAgainstTheBaselinePlan) {
  std::string other =
      write("ps.yaml", "cluster: " + testing::source_path("topologies/v100-ib-switch.yaml") +
                           "\nworkload: " + testing::source_path("models/resnet50.yaml") +
                           "\nstrategy: { kind: ps, ps: { servers: 2 } }\n"
                           "training: { workers: 16, batch_per_worker: 64 }\n");
  StudyOutcome o = run_study(
      load_study(one_case("    metric: speedup\n    baseline_plan: ps.yaml\n    published: 2\n")));
  core::PlanOverrides at64;
  at64.workers = 64;
  double ring = predict_analytic(core::load_plan((dir_ / "plan.yaml").string(), at64))
                    .throughput_samples_per_s;
  double ps = predict_analytic(core::load_plan(other, at64)).throughput_samples_per_s;
  ASSERT_EQ(o.cases.size(), 1u);
  EXPECT_NE(ring, ps);
  EXPECT_DOUBLE_EQ(o.cases[0].predicted, ring / ps);
  EXPECT_EQ(o.cases[0].baseline->workers, 64);
  EXPECT_NE(study_markdown(o).find("64 (vs ps.yaml)"), std::string::npos) << study_markdown(o);
  std::string stray = one_case(
      "    metric: throughput_samples_per_s\n    baseline_plan: ps.yaml\n    published: 1\n");
  EXPECT_NE(error_of(stray).find("cases[0].baseline_plan"), std::string::npos) << error_of(stray);
}

TEST_F(StudyFiles, MalformedStudiesAreRefusedWithFileLineAndField) {
  std::string no_tolerance =
      one_case("    metric: throughput_samples_per_s\n    published: 1\n", "");
  EXPECT_NE(error_of(no_tolerance).find("tolerance"), std::string::npos);
  std::string bad_metric = one_case("    metric: speed\n    published: 1\n");
  EXPECT_NE(error_of(bad_metric).find("study.yaml:9"), std::string::npos) << error_of(bad_metric);
  EXPECT_NE(error_of(bad_metric).find("cases[0].metric"), std::string::npos);
  std::string stray_baseline =
      one_case("    metric: throughput_samples_per_s\n    baseline_workers: 8\n    published: 1\n");
  EXPECT_NE(error_of(stray_baseline).find("baseline_workers"), std::string::npos);
  std::string silent_gap =
      one_case("    metric: throughput_samples_per_s\n    published: 1\n    held: false\n");
  EXPECT_NE(error_of(silent_gap).find("needs a note"), std::string::npos) << error_of(silent_gap);
  std::string silent_calibration =
      one_case("    metric: throughput_samples_per_s\n    published: 1\n    calibration: true\n");
  EXPECT_NE(error_of(silent_calibration).find("what it calibrates"), std::string::npos)
      << error_of(silent_calibration);
  std::string unheld_calibration = one_case(
      "    metric: throughput_samples_per_s\n    published: 1\n    calibration: true\n"
      "    held: false\n    note: n\n");
  EXPECT_NE(error_of(unheld_calibration).find("cases[0].held"), std::string::npos)
      << error_of(unheld_calibration);
  std::string loose_goal = one_case("    metric: throughput_samples_per_s\n    published: 1\n",
                                    "tolerance: 3\ngoal: 5\n");
  EXPECT_NE(error_of(loose_goal).find("goal"), std::string::npos) << error_of(loose_goal);
  std::string no_epoch = one_case("    metric: epoch_time_s\n    published: 30\n");
  EXPECT_NE(error_of(no_epoch).find("samples_per_epoch"), std::string::npos);
  std::string bad_plan =
      one_case("    metric: speedup\n    baseline_workers: 8\n    published: 2\n");
  write("plan.yaml", "cluster: nowhere.yaml\n");
  EXPECT_NE(error_of(bad_plan).find("nowhere.yaml"), std::string::npos) << error_of(bad_plan);
}

TEST_F(StudyFiles, CrossoverClaimsAreCheckedAtEverySizeInTheirRange) {
  std::string sweep =
      "crossovers:\n  - name: x\n    plan: plan.yaml\n    workers: \"8:256:x2\"\n"
      "    strategies: [ps, ring]\n    claims:\n";
  std::string holds = write("holds.yaml", "study: t\ntitle: T\nsource: S\n" + sweep +
                                              "      - { better: ring, than: ps, from: 16, "
                                              "source: s }\n");
  StudyOutcome o = run_study(load_study(holds));
  ASSERT_EQ(o.crossovers.size(), 1u);
  ASSERT_EQ(o.crossovers[0].claims.size(), 1u);
  EXPECT_TRUE(o.crossovers[0].claims[0].holds) << o.crossovers[0].claims[0].detail;
  EXPECT_TRUE(o.passes());
  std::string fails = write("fails.yaml", "study: t\ntitle: T\nsource: S\n" + sweep +
                                              "      - { better: ps, than: ring, source: s }\n");
  o = run_study(load_study(fails));
  EXPECT_FALSE(o.crossovers[0].claims[0].holds);
  EXPECT_NE(o.crossovers[0].claims[0].detail.find("fails at 8 workers"), std::string::npos)
      << o.crossovers[0].claims[0].detail;
  EXPECT_FALSE(o.passes());
  std::string foreign =
      write("foreign.yaml", "study: t\ntitle: T\nsource: S\n" + sweep +
                                "      - { better: tree, than: ps, source: s }\n");
  EXPECT_NE(error_of(foreign).find("not among the sweep's strategies"), std::string::npos);
  // A crossover study's chart is embedded above its sweeps; without `chart:` there is none.
  std::string charted =
      write("charted.yaml", "study: t\ntitle: T\nsource: S\nchart: x.png\n" + sweep +
                                "      - { better: ring, than: ps, "
                                "source: s }\n");
  std::string md = study_markdown(run_study(load_study(charted)));
  EXPECT_NE(md.find("scaling efficiency by strategy, its crossovers numbered](x.png)"),
            std::string::npos)
      << md;
  EXPECT_LT(md.find("(x.png)"), md.find("## Crossovers: x"));
  EXPECT_EQ(study_markdown(run_study(load_study(holds))).find(".png"), std::string::npos);
}

}  // namespace
}  // namespace scaleout::sim
