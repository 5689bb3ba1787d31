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
#include "sim/rail_bundle.hpp"
#include "sim/sim_progress.hpp"

namespace scaleout::sim {

// fast: a run of ring steps with fixed peers is one message per direction plus the steps'
// latencies (see SimWorld::coalesce); step: every step is its own message.
enum class Fidelity { kFast, kStep };

// "fast" | "step"; throws core::InputError naming `field` for anything else.
Fidelity parse_fidelity(const std::string& text, const std::string& field = "fidelity");
const char* fidelity_name(Fidelity fidelity);
// The fidelity a plan runs at: fast coalesces a run of steps, exact when each step's flows are
// alike; in PCIe-tree nodes one ring step's flows cross unlike links (the step waits for the one
// crossing an uplink), with stragglers, speed factors or per-link bandwidths one rank's steps
// come late, and with context or expert parallelism a group's members wait on each other's place
// in the data group's ring, so there every step is simulated on its own (the result's `fidelity`
// says which ran).
Fidelity fidelity_for(const core::Plan& plan, Fidelity asked);

// The most messages a simulation may send before it is refused: ten seconds to five minutes on one
// core here (a message costs about 2 us as a tree's chunk, 60 us as a 16,384-rank ring's phase).
constexpr double kDefaultMaxEvents = 5e6;

// The engine's shortcuts, each turned off to compare it with the plain way (the tests do); the
// answer must not change.
struct SimShortcuts {
  bool flat_zone = true;        // one zone for a cluster on one switch, not a zone per node
  int direct_transfers = 0;     // a rank's own transfers before relays post the rest; 0: default
  bool release_taken = true;    // taken sends leave at once; stages receive ahead (model-parallel)
  long long max_map_count = 0;  // plan actor stacks for this vm.max_map_count; 0: the system's
  // Rails bundled into one NIC from this many stand-in transfers (sim/rail_bundle.hpp).
  long long bundle_rails_from = kBundleRailsFrom;
};

struct SimOptions {
  Fidelity fidelity = Fidelity::kFast;
  std::string trace_path;                 // Chrome trace to write; empty for none
  double max_events = kDefaultMaxEvents;  // sim/work_estimate.hpp: refused beyond this
  SimShortcuts shortcuts;
  // SimGrid's own options, "name:value" each (simulate --simgrid-cfg), set after the plan's.
  std::vector<std::string> simgrid_config;
};

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
