// Measured runs laid over the predicted curves: a result JSON (from `scaleout run` or any engine)
// with the analytic prediction of the same strategy and size, and the error between them.
#pragma once

#include <string>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"

namespace scaleout::gui {

struct MeasuredPoint {
  std::string file;
  core::RunResult measured;
  core::RunResult predicted;    // analytic, the window's plan at the measured strategy and size
  double throughput_error = 0;  // core::relative_error(predicted, measured) of samples/s
  double step_time_error = 0;
};

// Reads `path` and predicts its configuration on `plan`. Throws core::InputError naming the file
// when it is not a result JSON or its configuration cannot run on the plan's cluster.
MeasuredPoint load_measured(const std::string& path, const core::Plan& plan);

}  // namespace scaleout::gui
