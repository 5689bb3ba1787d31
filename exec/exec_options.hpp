// How a plan is executed for real: the backend, deadlines, the compute's scale, the emulated
// cluster's namespaces, and the faults a test may inject. Read by the launcher (local_run.hpp) and
// by every rank's program, which therefore need not include the launcher.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "exec/faults.hpp"

namespace scaleout::exec {

enum class Backend { kCpu, kCuda };  // Gloo over TCP, or NCCL on GPUs (exec/cuda_backend.hpp)

struct ExecOptions {
  Backend backend = Backend::kCpu;
  std::chrono::milliseconds timeout{20000};  // per transfer; a silent peer fails the run after this
  double compute_scale = 1e-4;  // share of the plan's FLOPs each step really computes (CPU-sized)
  // > 0: each rank's device is emulated: a compute phase waits flops / this rate (FLOP/s) with the
  // CPU left free, as a GPU leaves its host thread free, instead of running the kernel. Lets a
  // machine with fewer cores than ranks check overlap without compute taking the exchange's CPU.
  double emulated_device_flops = 0;
  bool baselines = true;   // also time Gloo's own all-reduces on the same data
  std::string trace_path;  // Chrome trace of the measured run; empty for none
  // Run each rank inside its node's namespace of this emulated cluster (see emulated_cluster.hpp);
  // empty: all ranks on loopback.
  std::vector<std::string> node_netns;
  std::vector<std::string> node_ip;
  // Each node's addresses on its further rails (EmulatedCluster::node_rail_ip); empty: one NIC.
  std::vector<std::vector<std::string>> node_rail_ip;
  // Faults a test injects to prove that the run's checks fail (exec/faults.hpp); none by default.
  Faults faults;
  // The longest a whole run of `steps` may take: a few transfer deadlines per step.
  std::chrono::milliseconds run_timeout(int steps) const { return timeout * (steps + 3); }
};

// The run failed: a rank died, timed out or found wrong sums. what() names the rank.
class RunFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace scaleout::exec
