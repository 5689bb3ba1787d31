// A study's report: markdown for people, JSON for scripts.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "explore/study.hpp"

namespace scaleout::sim {

namespace {

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string metric_value_text(StudyMetric m, double v) {
  switch (m) {
    case StudyMetric::kScalingEfficiency:
      return format("%.1f %%", 100 * v);
    case StudyMetric::kSpeedup:
      return format("%.2fx", v);
    case StudyMetric::kEpochTime:
      return format("%.0f s", v);
    case StudyMetric::kThroughput:
      return format("%.0f samples/s", v);
    case StudyMetric::kMegatronTflops:
    case StudyMetric::kModelTflops:
      return format("%.0f TFLOP/s", v);
    case StudyMetric::kGoodput:
      return format("%.1f %%", 100 * v);
    case StudyMetric::kFailuresPerDay:
      return format("%.2f a day", v);
  }
  return "";
}

std::string error_text(StudyMetric m, double e) {
  return counted_in_points(m) ? format("%+.1f points", e) : format("%+.1f %%", e);
}

std::string tolerance_text(StudyMetric m, double t) {
  return counted_in_points(m) ? format("%g points", t) : format("%g %%", t);
}

std::string size_text(const StudyCase& c) {
  std::string s = std::to_string(c.workers);
  if (!c.baseline_plan_path.empty())
    s += " (vs " + std::filesystem::path(c.baseline_plan_path).filename().string() +
         (c.baseline_workers != c.workers ? " at " + std::to_string(c.baseline_workers) : "") + ")";
  else if (c.baseline_workers > 0)
    s += " (vs " + std::to_string(c.baseline_workers) + ")";
  return s;
}

std::string verdict_text(const CaseOutcome& c) {
  if (!c.predicts()) return "calibration (an input)";
  std::string within = c.within ? "yes" : "no";
  if (c.wrong_direction()) within += ", wrong direction";
  if (!c.study_case.held) return within + " (known gap)";
  return c.within ? within : "**" + within + "**";
}

void table(std::ostringstream& md, const StudyOutcome& o) {
  md << "| case | workers | strategy | metric | published | predicted | error | tolerance | "
        "within |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : o.cases) {
    const StudyCase& s = c.study_case;
    md << "| " << s.name << " | " << size_text(s) << " | " << c.result.strategy << " | "
       << metric_name(s.metric) << " | " << metric_value_text(s.metric, s.published) << " | "
       << metric_value_text(s.metric, c.predicted) << " | " << error_text(s.metric, c.error)
       << " | " << tolerance_text(s.metric, s.tolerance) << " | " << verdict_text(c) << " |\n";
  }
}

// Step time and its parts, so a reader sees why a number is what it is.
void details(std::ostringstream& md, const StudyOutcome& o) {
  md << "\n## The runs behind each number\n\n"
        "| case | workers | step time | compute | exposed communication | throughput |\n"
        "|---|---|---|---|---|---|\n";
  auto row = [&md](const std::string& name, const core::RunResult& r) {
    md << "| " << name << " | " << r.workers << " | " << format("%.2f ms", r.step_time_s * 1e3)
       << " | " << format("%.2f ms", r.phases.compute_s * 1e3) << " | "
       << format("%.2f ms", r.phases.exposed_comm_s * 1e3) << " | "
       << format("%.0f samples/s", r.throughput_samples_per_s) << " |\n";
  };
  for (const auto& c : o.cases) {
    row(c.study_case.name, c.result);
    if (c.baseline) row(c.study_case.name + " (baseline)", *c.baseline);
  }
}

// Over the predictions only: calibration rows are inputs.
double median_abs_error(const StudyOutcome& o, bool efficiency) {
  std::vector<double> e;
  for (const auto& c : o.cases)
    if (c.predicts() && counted_in_points(c.study_case.metric) == efficiency)
      e.push_back(std::fabs(c.error));
  if (e.empty()) return -1;
  std::sort(e.begin(), e.end());
  return e.size() % 2 ? e[e.size() / 2] : (e[e.size() / 2 - 1] + e[e.size() / 2]) / 2;
}

// Raw counts: every prediction against its tolerance, held or not; calibration rows apart.
void summary(std::ostringstream& md, const StudyOutcome& o) {
  StudyCounts n = count_cases(o);
  md << "\n";
  if (n.predictions == 0)
    md << "No row here is a prediction.";
  else
    md << n.within << " of " << n.predictions << " predictions are within their tolerance.";
  if (n.predictions > 0 && o.study.goal > 0)
    md << " " << n.within_goal << " of " << n.predictions << " are within the goal of "
       << tolerance_text(o.study.cases.front().metric, o.study.goal) << ".";
  long gaps_outside = n.predictions - n.within - n.held_outside;
  if (n.known_gaps > 0)
    md << " " << n.known_gaps << (n.known_gaps == 1 ? " is a known gap" : " are known gaps")
       << " (not held: reported, not failing the study; " << gaps_outside
       << " of them outside, see the notes).";
  if (n.held_outside > 0)
    md << " **" << n.held_outside << " held prediction" << (n.held_outside == 1 ? " is" : "s are")
       << " outside the tolerance: the study fails.**";
  if (n.speedups > 0)
    md << " " << n.speedups - n.wrong_direction << " of " << n.speedups
       << " speedups are on the published side of 1 (faster or slower).";
  if (n.calibration > 0)
    md << " " << n.calibration << " calibration row" << (n.calibration == 1 ? " is an" : "s are")
       << " input, counted nowhere.";
  double eff = median_abs_error(o, true), rel = median_abs_error(o, false);
  bool goodput = std::any_of(o.cases.begin(), o.cases.end(), [](const auto& c) {
    return c.study_case.metric == StudyMetric::kGoodput;
  });
  if (eff >= 0)
    md << (goodput ? " Median error on goodput and efficiency: "
                   : " Median error on scaling efficiency: ")
       << format("%.1f points.", eff);
  if (rel >= 0) md << " Median error on the other numbers: " << format("%.1f %%.", rel);
  md << "\n";
}

void efficiency_table(std::ostringstream& md, const Curves& curves) {
  md << "| workers |";
  for (const auto& c : curves.curves) md << " " << c.strategy << " |";
  md << "\n|---|";
  for (std::size_t i = 0; i < curves.curves.size(); ++i) md << "---|";
  md << "\n";
  for (int n : curves.workers) {
    md << "| " << n << " |";
    for (const auto& c : curves.curves) {
      const core::RunResult* r = find_point(curves, c.strategy, n);
      md << " " << (r ? format("%.1f %%", 100 * r->scaling_efficiency) : std::string("-")) << " |";
    }
    md << "\n";
  }
}

void crossover_section(std::ostringstream& md, const CrossoverOutcome& x) {
  md << "\n## Crossovers: " << x.sweep.name << "\n\nPlan `" << x.sweep.plan_path
     << "`, scaling efficiency (analytic engine):\n\n";
  efficiency_table(md, x.curves);
  md << "\n";
  if (x.crossings.empty()) md << "No two strategies change order over these sizes.\n";
  for (const auto& c : x.crossings)
    md << "- **" << c.crossing.first << " -> " << c.crossing.second << "** near "
       << format("%.0f", c.crossing.workers) << " workers ("
       << format("%.1f %%", 100 * c.crossing.efficiency) << "): " << c.reason << "\n";
  if (!x.claims.empty()) md << "\nPublished claims:\n\n";
  for (const auto& c : x.claims) {
    md << "- " << core::strategy_name(c.claim.better) << " scales better than "
       << core::strategy_name(c.claim.than) << " from " << c.claim.from << " workers";
    if (c.claim.until > 0) md << " to " << c.claim.until;
    md << " (" << c.claim.source << "): " << (c.holds ? "holds, " : "**does not hold**, ")
       << c.detail << "\n";
  }
}

}  // namespace

std::string study_markdown(const StudyOutcome& o) {
  std::ostringstream md;
  md << "# " << o.study.title << "\n\n"
     << "Source: " << o.study.source << "\n\n"
     << "Predicted by scaleout's " << engine_name(o.engine) << " engine: `scaleout study "
     << o.study.file << "`.\n";
  if (!o.study.assumptions.empty()) md << "\n## Assumptions\n\n" << o.study.assumptions << "\n";
  if (!o.cases.empty()) {
    md << "\n## Predicted against published\n\n";
    table(md, o);
    summary(md, o);
    if (!o.study.chart.empty())
      md << "\n![Each case's prediction over the published number (1 is exact)](" << o.study.chart
         << ")\n";
  }
  if (o.cases.empty() && !o.crossovers.empty() && !o.study.chart.empty())
    md << "\n![Each sweep's scaling efficiency by strategy, its crossovers numbered]("
       << o.study.chart << ")\n";
  for (const auto& x : o.crossovers) crossover_section(md, x);
  bool notes = std::any_of(o.cases.begin(), o.cases.end(),
                           [](const auto& c) { return !c.study_case.note.empty(); });
  if (notes) {
    md << "\n## Notes\n\n";
    for (const auto& c : o.cases)
      if (!c.study_case.note.empty())
        md << "- **" << c.study_case.name << "**: " << c.study_case.note << "\n";
  }
  if (!o.cases.empty()) details(md, o);
  std::vector<std::string> warnings;
  for (const auto& c : o.cases)
    for (const auto& w : c.warnings)
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
  if (!warnings.empty()) {
    md << "\n## Warnings from the engine\n\n";
    for (const auto& w : warnings) md << "- " << w << "\n";
  }
  return md.str();
}

std::string study_json(const StudyOutcome& o) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : o.cases) {
    const StudyCase& s = c.study_case;
    nlohmann::json j = {{"name", s.name},
                        {"workers", s.workers},
                        {"strategy", c.result.strategy},
                        {"metric", metric_name(s.metric)},
                        {"published", s.published},
                        {"predicted", c.predicted},
                        {"error", c.error},
                        {"tolerance", s.tolerance},
                        {"within", c.within},
                        {"wrong_direction", c.wrong_direction()},
                        {"held", s.held},
                        {"calibration", s.calibration},
                        {"step_time_s", c.result.step_time_s},
                        {"warnings", c.warnings}};
    if (s.baseline_workers > 0) j["baseline_workers"] = s.baseline_workers;
    if (!s.baseline_plan_path.empty())
      j["baseline_plan"] = std::filesystem::path(s.baseline_plan_path).filename().string();
    cases.push_back(j);
  }
  nlohmann::json crossovers = nlohmann::json::array();
  for (const auto& x : o.crossovers) {
    nlohmann::json j = {{"name", x.sweep.name},
                        {"crossings", nlohmann::json::array()},
                        {"claims", nlohmann::json::array()}};
    for (const auto& c : x.crossings)
      j["crossings"].push_back({{"first", c.crossing.first},
                                {"second", c.crossing.second},
                                {"workers", c.crossing.workers},
                                {"efficiency", c.crossing.efficiency},
                                {"reason", c.reason}});
    for (const auto& c : x.claims)
      j["claims"].push_back({{"better", core::strategy_name(c.claim.better)},
                             {"than", core::strategy_name(c.claim.than)},
                             {"holds", c.holds},
                             {"detail", c.detail}});
    crossovers.push_back(j);
  }
  StudyCounts n = count_cases(o);
  nlohmann::json counts = {
      {"predictions", n.predictions},   {"within", n.within},
      {"within_goal", n.within_goal},   {"known_gaps", n.known_gaps},
      {"held_outside", n.held_outside}, {"calibration", n.calibration},
      {"speedups", n.speedups},         {"wrong_direction", n.wrong_direction}};
  nlohmann::json out = {
      {"study", o.study.name},   {"source", o.study.source}, {"engine", engine_name(o.engine)},
      {"passes", o.passes()},    {"counts", counts},         {"cases", cases},
      {"crossovers", crossovers}};
  return out.dump(2);
}

}  // namespace scaleout::sim
