// Predicted against measured, number by number: the comparison `compare`, `validate` and the GUI
// show, in one place.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/results/result.hpp"

namespace scaleout::core {

// (predicted - measured) / measured; 0 when nothing was measured.
double relative_error(double predicted, double measured);

// The median of a result's step times (0 for none): robust to one step disturbed on a shared
// machine.
double median_step(const RunResult& r);

struct ComparedValue {
  std::string name;   // "step_time_s", "throughput_samples_per_s", ...
  std::string label;  // for people: "step time"
  double predicted = 0, measured = 0;
  double relative_error = 0;
  // False for staleness (an error relative to 0 means nothing) and for what the measured result
  // does not give (0).
  bool has_error = true;
};

// Step time (mean), median step, throughput, communication, busbw and mean staleness.
std::vector<ComparedValue> compare_results(const RunResult& predicted, const RunResult& measured);

// {"step_time_s": {"predicted", "measured", "relative_error"}, ...}
nlohmann::json comparison_json(const std::vector<ComparedValue>& values);

// The step time validate judges: the median step when every step is alike (synchronous
// collectives and PS), the mean over the run for a PS training program (its workers drift apart).
double judged_step(const RunResult& r, bool steps_alike);

}  // namespace scaleout::core
