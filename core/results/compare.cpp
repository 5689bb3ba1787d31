#include "core/results/compare.hpp"

#include <algorithm>

namespace scaleout::core {

double relative_error(double predicted, double measured) {
  return measured != 0 ? (predicted - measured) / measured : 0;
}

double median_step(const RunResult& r) {
  std::vector<double> t;
  for (const auto& s : r.steps) t.push_back(s.time_s);
  std::sort(t.begin(), t.end());
  return t.empty() ? 0 : t[t.size() / 2];
}

double judged_step(const RunResult& r, bool steps_alike) {
  return steps_alike ? median_step(r) : r.step_time_s;
}

std::vector<ComparedValue> compare_results(const RunResult& p, const RunResult& m) {
  // A value the measured result does not give (0: another framework's log lacks it) has no error.
  auto value = [](const char* name, const char* label, double pv, double mv,
                  bool has_error = true) {
    has_error = has_error && mv != 0;
    return ComparedValue{name, label, pv, mv, has_error ? relative_error(pv, mv) : 0, has_error};
  };
  return {value("step_time_s", "step time (mean)", p.step_time_s, m.step_time_s),
          value("median_step_s", "step time (median)", median_step(p), median_step(m)),
          value("throughput_samples_per_s", "throughput", p.throughput_samples_per_s,
                m.throughput_samples_per_s),
          value("comm_s", "communication", p.phases.comm_s, m.phases.comm_s),
          value("busbw_Bps", "busbw", p.busbw_Bps, m.busbw_Bps),
          value("staleness_mean", "staleness (mean)", p.staleness.mean, m.staleness.mean, false)};
}

nlohmann::json comparison_json(const std::vector<ComparedValue>& values) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& v : values) {
    out[v.name] = {{"predicted", v.predicted}, {"measured", v.measured}};
    if (v.has_error) out[v.name]["relative_error"] = v.relative_error;
  }
  return out;
}

}  // namespace scaleout::core
