// Executed-run options for tests: short deadlines, a thousandth of the plan's compute, no Gloo
// baselines.
#pragma once

#include <chrono>

#include "exec/local_run.hpp"

namespace scaleout::testing {

inline exec::ExecOptions quick_options() {
  exec::ExecOptions o;
  o.timeout = std::chrono::milliseconds(10000);
  o.compute_scale = 1e-3;
  o.baselines = false;
  return o;
}

}  // namespace scaleout::testing
