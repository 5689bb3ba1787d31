// Executes a plan for real on this machine: one process per rank (workers, then parameter
// servers), Gloo over TCP on loopback, rendezvous through a file store in a run directory. Every
// rank runs the same strategy program as the simulator, on real floats, and checks the sums.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "exec/cluster_spec.hpp"
#include "exec/exec_options.hpp"

namespace scaleout::exec {

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
