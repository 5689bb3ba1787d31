// Executes a plan for real on this machine: one process per rank (workers, then parameter
// servers), Gloo over TCP on loopback, rendezvous through a file store in a run directory. Every
// rank runs the same strategy program as the simulator, on real floats, and checks the sums.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/result.hpp"
#include "exec/cluster_spec.hpp"

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
  // Fault injection for tests: this rank kills itself (SIGKILL) at the start of this step.
  int kill_rank = -1;
  int kill_step = 0;
  // Fault injection for tests: this worker's gradient gets one wrong element after this step's
  // exchange, as a corrupted receive would leave it (the check must count it; the run fails).
  int corrupt_rank = -1;
  int corrupt_step = 0;
  // Fault injection for tests: this rank stops itself (SIGSTOP) at the start of this step.
  int stop_rank = -1;
  int stop_step = 0;
  // For tests: in a model-parallel plan, this rank runs its first two forwards in the wrong order
  // (the stage after it must count the micro-batches it did not expect; the run fails).
  int break_schedule_rank = -1;
  // For tests: in a model-parallel plan on CPUs, this rank's first receive of the second step
  // lands elsewhere (its slot keeps the first step's data; the checks must count it; the run
  // fails). On GPUs the checked iterations are first steps of their own: it does not apply.
  int stale_receive_rank = -1;
  // For tests: the compressed exchange runs without error feedback while its reference keeps it
  // (the check must find the difference from the second step on; the run fails).
  bool drop_error_feedback = false;
  // For tests: the servers apply pushes without delay compensation (lambda 0) while the check
  // expects the plan's, so that the exact check must fail.
  bool drop_delay_compensation = false;

  // The longest a whole run of `steps` may take: a few transfer deadlines per step.
  std::chrono::milliseconds run_timeout(int steps) const { return timeout * (steps + 3); }
};

// The run failed: a rank died, timed out or found wrong sums. what() names the rank.
class RunFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs the plan and returns the measured result (engine "cpu" or "cuda"; `wrong` counts elements
// that differ from the exact sum). Throws core::InputError for plans that cannot be executed,
// RunFailed when a rank fails or times out. Leaves no process behind.
core::RunResult run_local(const core::Plan& plan, const ExecOptions& options);

// Throws core::InputError when the plan asks for what only the simulator does (PS knobs,
// stragglers, failures).
void check_executable(const core::Plan& plan);

// Runs this process's one rank of a job started by mpirun, srun or with TF_CONFIG, across hosts;
// ranks meet through a file store in `store_dir`, which every host must see (a shared directory).
// Rank 0 waits for every report and returns the result; the other ranks return nullopt.
std::optional<core::RunResult> run_external(const core::Plan& plan, const ExecOptions& options,
                                            const ExternalRank& me, const std::string& store_dir);

}  // namespace scaleout::exec
