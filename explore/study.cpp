#include "explore/study.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/yaml_reader.hpp"

namespace scaleout::sim {

namespace {

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = {
      "scaling_efficiency",         "speedup", "epoch_time_s",     "throughput_samples_per_s",
      "megatron_tflops_per_device", "goodput", "failures_per_day", "model_tflops_per_device"};
  return names;
}

StudyMetric parse_metric(const std::string& name) {
  const auto& names = metric_names();
  return static_cast<StudyMetric>(std::find(names.begin(), names.end(), name) - names.begin());
}

}  // namespace

bool counted_in_points(StudyMetric m) {
  return m == StudyMetric::kScalingEfficiency || m == StudyMetric::kGoodput;
}

namespace {

bool needs_baseline(StudyMetric m) {
  return m == StudyMetric::kScalingEfficiency || m == StudyMetric::kSpeedup;
}

// Loads the case's plan at `workers` (and its strategy), so that a plan error surfaces while the
// study loads, with the plan's own file and line.
core::Plan case_plan(const StudyCase& c, int workers, bool baseline = false) {
  core::PlanOverrides overrides;
  overrides.workers = workers;
  overrides.strategy = c.strategy;
  bool other = baseline && !c.baseline_plan_path.empty();
  return core::load_plan(other ? c.baseline_plan_path : c.plan_path, overrides);
}

StudyCase read_case(const YAML::Node& node, const std::string& file, double default_tolerance,
                    const std::filesystem::path& folder, std::size_t index) {
  core::YamlMap m(node, file, "cases[" + std::to_string(index) + "]");
  StudyCase c;
  c.line = core::line_of(node);
  c.name = m.get_string("name");
  c.plan_path = (folder / m.get_string("plan")).lexically_normal().string();
  c.workers = m.get_int("workers", 1);
  if (m.has("strategy")) {
    auto kind = core::parse_strategy_kind(m.get_choice("strategy", core::strategy_names()));
    c.strategy = *kind;
  }
  c.metric = parse_metric(m.get_choice("metric", metric_names()));
  c.baseline_workers = m.get_int_or("baseline_workers", 1, 0);
  if (c.baseline_workers > 0 && !needs_baseline(c.metric))
    m.fail("baseline_workers", "only scaling_efficiency and speedup have a baseline");
  if (m.has("baseline_plan")) {
    if (c.metric != StudyMetric::kSpeedup)
      m.fail("baseline_plan", "only speedup is measured against another plan");
    c.baseline_plan_path = (folder / m.get_string("baseline_plan")).lexically_normal().string();
    if (c.baseline_workers == 0) c.baseline_workers = c.workers;  // the same size by default
  }
  if (c.metric == StudyMetric::kSpeedup && c.baseline_workers == 0)
    m.fail("metric", "speedup needs baseline_workers or baseline_plan");
  if (c.metric == StudyMetric::kEpochTime) {
    c.samples_per_epoch = m.get_quantity("samples_per_epoch", core::Quantity::kCount);
    c.epochs = m.get_double("epochs", 1e-9, 1e9, 1.0);
  }
  double max_published = counted_in_points(c.metric) ? 2.0 : 1e300;
  c.published = m.get_double("published", 1e-300, max_published);
  c.tolerance = m.get_double("tolerance", 0, 1e6, default_tolerance);
  c.note = m.get_string("note", "");
  c.held = m.get_bool("held", true);
  if (!c.held && c.note.empty())
    m.fail("held", "a number not held to the tolerance needs a note saying why");
  c.calibration = m.get_bool("calibration", false);
  if (c.calibration && c.note.empty())
    m.fail("calibration", "a calibration row needs a note saying what it calibrates");
  if (c.calibration && !c.held)
    m.fail("held", "a calibration row is no prediction: it is neither held nor a known gap");
  m.finish();
  case_plan(c, c.workers);
  if (c.baseline_workers > 0) case_plan(c, c.baseline_workers, true);
  return c;
}

core::RunResult run_one(const StudyCase& c, int workers, Engine engine, bool baseline = false) {
  core::Plan plan = case_plan(c, workers, baseline);
  return make_engine(engine)->predict(plan);
}

void add_warnings(std::vector<std::string>& out, const core::RunResult& r) {
  for (const auto& w : r.warnings)
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
}

}  // namespace

const char* metric_name(StudyMetric metric) {
  return metric_names()[static_cast<std::size_t>(metric)].c_str();
}

Study load_study(const std::string& path) {
  YAML::Node root = core::load_yaml_file(path);
  core::YamlMap m(root, path, "");
  Study s;
  s.file = path;
  s.name = m.get_string("study");
  s.title = m.get_string("title");
  s.source = m.get_string("source");
  s.assumptions = m.get_string("assumptions", "");
  s.chart = m.get_string("chart", "");
  s.engine = parse_engine(m.get_choice("engine", {"analytic", "sim"}, "analytic"), "engine");
  YAML::Node cases = m.child("cases", false), crossovers = m.child("crossovers", false);
  if (cases.IsDefined() && !m.has("tolerance"))
    m.fail("tolerance",
           "a study with cases states its tolerance (points of efficiency, percent "
           "for the other metrics)");
  double tolerance = m.get_double("tolerance", 0, 1e6, 0);
  s.goal = m.get_double("goal", 0, 1e6, 0);
  if (s.goal > tolerance) m.fail("goal", "a goal is tighter than the tolerance, or absent");
  if (!cases.IsDefined() && !crossovers.IsDefined())
    m.fail("cases", "a study needs published numbers (cases) or crossover sweeps (crossovers)");
  for (const auto& [key, list] : {std::pair{"cases", cases}, std::pair{"crossovers", crossovers}})
    if (list.IsDefined() && (!list.IsSequence() || list.size() == 0))
      m.fail(key, "expected a non-empty list");
  m.finish();
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  for (std::size_t i = 0; cases.IsDefined() && i < cases.size(); ++i)
    s.cases.push_back(read_case(cases[i], path, tolerance, folder, i));
  auto in_points = [](const StudyCase& c) { return counted_in_points(c.metric); };
  if (s.goal > 0 && std::any_of(s.cases.begin(), s.cases.end(), in_points) &&
      !std::all_of(s.cases.begin(), s.cases.end(), in_points))
    m.fail("goal", "the cases mix points of efficiency with percents: one goal cannot hold both");
  for (std::size_t i = 0; crossovers.IsDefined() && i < crossovers.size(); ++i)
    s.crossovers.push_back(read_crossover_sweep(crossovers[i], path, folder.string(), i));
  return s;
}

double metric_value(const StudyCase& c, const core::RunResult& run,
                    const std::optional<core::RunResult>& baseline) {
  double throughput = run.throughput_samples_per_s;
  switch (c.metric) {
    case StudyMetric::kScalingEfficiency:
      if (!baseline) return run.scaling_efficiency;
      return (throughput / run.workers) / (baseline->throughput_samples_per_s / baseline->workers);
    case StudyMetric::kSpeedup:
      return throughput / baseline->throughput_samples_per_s;
    case StudyMetric::kEpochTime:
      return c.epochs * c.samples_per_epoch / throughput;
    case StudyMetric::kThroughput:
      return throughput;
    case StudyMetric::kMegatronTflops:
      return run.model_parallel ? run.model_parallel->megatron_flops_per_s_per_device / 1e12 : 0;
    case StudyMetric::kModelTflops:
      return run.model_parallel ? run.model_parallel->model_flops_per_s_per_device / 1e12 : 0;
    case StudyMetric::kGoodput:
      return run.reliability ? run.reliability->goodput : 0;
    case StudyMetric::kFailuresPerDay:
      return run.reliability && run.reliability->time_to_train_s > 0
                 ? run.reliability->failures / (run.reliability->time_to_train_s / 86400)
                 : 0;
  }
  return 0;
}

bool StudyOutcome::passes() const {
  bool claims = std::all_of(crossovers.begin(), crossovers.end(), [](const auto& x) {
    return std::all_of(x.claims.begin(), x.claims.end(), [](const auto& c) { return c.holds; });
  });
  return claims &&
         std::none_of(cases.begin(), cases.end(), [](const auto& c) { return c.fails(); });
}

bool CaseOutcome::wrong_direction() const {
  if (!predicts() || study_case.metric != StudyMetric::kSpeedup || study_case.published == 1)
    return false;
  return (predicted > 1) != (study_case.published > 1);
}

StudyCounts count_cases(const StudyOutcome& outcome) {
  StudyCounts n;
  for (const CaseOutcome& c : outcome.cases) {
    if (!c.predicts()) {
      ++n.calibration;
      continue;
    }
    ++n.predictions;
    if (c.within) ++n.within;
    if (outcome.study.goal > 0 && std::fabs(c.error) <= outcome.study.goal) ++n.within_goal;
    if (!c.study_case.held) ++n.known_gaps;
    if (c.fails()) ++n.held_outside;
    if (c.study_case.metric == StudyMetric::kSpeedup) ++n.speedups;
    if (c.wrong_direction()) ++n.wrong_direction;
  }
  return n;
}

StudyOutcome run_study(const Study& study, std::optional<Engine> engine,
                       const std::function<void(std::size_t, std::size_t)>& on_case) {
  StudyOutcome out;
  out.study = study;
  out.engine = engine.value_or(study.engine);
  for (const StudyCase& c : study.cases) {
    CaseOutcome o;
    o.study_case = c;
    o.result = run_one(c, c.workers, out.engine);
    add_warnings(o.warnings, o.result);
    if (c.baseline_workers > 0) {
      o.baseline = run_one(c, c.baseline_workers, out.engine, true);
      add_warnings(o.warnings, *o.baseline);
    }
    o.predicted = metric_value(c, o.result, o.baseline);
    o.error = counted_in_points(c.metric) ? 100 * (o.predicted - c.published)
                                          : 100 * (o.predicted - c.published) / c.published;
    o.within = std::isfinite(o.error) && std::fabs(o.error) <= c.tolerance;
    out.cases.push_back(std::move(o));
    if (on_case) on_case(out.cases.size(), study.cases.size() + study.crossovers.size());
  }
  for (const CrossoverSweep& x : study.crossovers) {
    out.crossovers.push_back(run_crossover_sweep(x));
    if (on_case)
      on_case(out.cases.size() + out.crossovers.size(),
              study.cases.size() + study.crossovers.size());
  }
  return out;
}

}  // namespace scaleout::sim
