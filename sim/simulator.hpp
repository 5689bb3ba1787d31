// Predicts a plan on SimGrid: one actor per rank runs the strategy program over the simulated
// fabric, with compute phases from the workload and, with overlap, buckets leaving as backward
// produces them.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "sim/sim_options.hpp"
#include "sim/sim_progress.hpp"

namespace scaleout::sim {

// The fidelity a plan runs at: fast coalesces a run of steps, exact when each step's flows are
// alike; in PCIe-tree nodes one ring step's flows cross unlike links (the step waits for the one
// crossing an uplink), with stragglers, speed factors or per-link bandwidths one rank's steps
// come late, and with context or expert parallelism a group's members wait on each other's place
// in the data group's ring, so there every step is simulated on its own (the result's `fidelity`
// says which ran).
Fidelity fidelity_for(const core::Plan& plan, Fidelity asked);

// The plans this engine refuses before any work (core::InputError naming the field): a parameter
// server as a model-parallel plan's data exchange, and a simulation estimated to send more than
// options.max_events messages. Returns the messages it estimates. start_simulation and
// simulate_here refuse the same plans.
double check_simulation(const core::Plan& plan, const SimOptions& options);

// Runs the simulation in this process. REQUIRES: called at most once per process (SimGrid keeps
// one engine per process). Throws core::InputError for plans the strategy cannot run.
core::RunResult simulate_here(const core::Plan& plan, const SimOptions& options);

// A simulation running in a child process, so that any number can run, one after another or
// side by side (each child has its own SimGrid engine).
struct SimChild {
  pid_t pid = -1;
  std::string result_file;
  std::shared_ptr<SimProgress> progress;  // counted by the child; may be null
  double estimated_messages = 0;          // the work estimate it was admitted with
};

SimChild start_simulation(const core::Plan& plan, const SimOptions& options);
// Waits for the child and returns its result. Throws core::InputError for input errors the child
// found and std::runtime_error when it failed or crashed.
core::RunResult finish_simulation(const SimChild& child);

// What the child has counted so far (`elapsed_s` is the caller's wall time since it started).
ProgressReport read_progress(const SimChild& child, double elapsed_s);

// The same, calling `on_progress` about every `every_s` seconds of wall time while it waits, and
// once more when the child has ended (with its final count).
using OnProgress = std::function<void(const ProgressReport&)>;
core::RunResult finish_simulation(const SimChild& child, const OnProgress& on_progress,
                                  double every_s = 0.5);

// The same, for a child already reaped with waitpid (its wait status).
core::RunResult collect_simulation(const SimChild& child, int wait_status);

// start_simulation + finish_simulation.
core::RunResult simulate(const core::Plan& plan, const SimOptions& options = {});
core::RunResult simulate(const core::Plan& plan, const SimOptions& options,
                         const OnProgress& on_progress);

}  // namespace scaleout::sim
