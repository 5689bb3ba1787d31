// Executes a plan for real on this machine: one process per rank (workers, then parameter
// servers), Gloo over TCP on loopback, rendezvous through a file store in a run directory. Every
// rank runs the same strategy program as the simulator, on real floats, and checks the sums.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/result.hpp"

namespace scaleout::exec {

struct ExecOptions {
  std::chrono::milliseconds timeout{20000};  // per transfer; a silent peer fails the run after this
  double compute_scale = 1e-4;  // share of the plan's FLOPs each step really computes (CPU-sized)
  bool baselines = true;        // also time Gloo's own all-reduces on the same data
  std::string trace_path;       // Chrome trace of the measured run; empty for none
  // Run each rank inside its node's namespace of this emulated cluster (see emulated_cluster.hpp);
  // empty: all ranks on loopback.
  std::vector<std::string> node_netns;
  std::vector<std::string> node_ip;
  // Fault injection for tests: this rank kills itself (SIGKILL) at the start of this step.
  int kill_rank = -1;
  int kill_step = 0;
};

// The run failed: a rank died, timed out or found wrong sums. what() names the rank.
class RunFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs the plan and returns the measured result (engine "cpu"; `wrong` counts elements that
// differ from the exact sum). Throws core::InputError for plans that cannot be executed, RunFailed
// when a rank fails or times out. Leaves no process behind.
core::RunResult run_local(const core::Plan& plan, const ExecOptions& options);

}  // namespace scaleout::exec
