// What every simulating program sets up alike: SimGrid's engine with the plan's network model and
// actor stacks, and how many transfers a rank keeps in flight itself.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <simgrid/s4u.hpp>

#include "core/parallel/rank_plan.hpp"
#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "sim/actor_stacks.hpp"
#include "sim/platform.hpp"
#include "sim/sim_fabric.hpp"
#include "sim/simulator.hpp"

namespace scaleout::sim {

// Each actor's stack. Every strategy, the PS training program and tracing ran with 8 KiB stacks
// and guard pages (4 KiB overflowed): 256 KiB leaves a wide margin for stacks without guards.
inline constexpr std::uint64_t kStackBytes = 256 << 10;

// SimGrid's engine for one run, with the plan's network model and actor stacks, then `config`
// (SimOptions::simgrid_config). Throws core::InputError naming --simgrid-cfg for an option
// SimGrid refuses.
std::unique_ptr<simgrid::s4u::Engine> start_engine(const core::Plan& plan, const StackPlan& stacks,
                                                   const std::vector<std::string>& config);

// A simulation's engine and platform, set up alike by every simulating program: a node's rails
// bundled into one NIC where the plan allows it (sim/rail_bundle.hpp) and the window does not bind
// inside the nodes, the engine started with stacks for `actors(ranks)` actors, and the platform
// built from the ranks' topology with the plan's storage.
struct SimSetup {
  core::RankPlan ranks;
  bool bundled = false;  // the result then says so (rails_bundled_warning)
  std::unique_ptr<simgrid::s4u::Engine> engine;
  SimPlatform platform;
};
SimSetup set_up_simulation(const core::Plan& plan, const SimOptions& options,
                           const std::function<std::int64_t(const core::RankPlan&)>& actors);

// Transfers a rank keeps in flight itself before relay actors post the rest (SimWorld), unless
// the options' shortcuts give another number.
int direct_comms(const SimOptions& options);

// Where each rank runs on the platform (and its rails), and the world's network settings for the
// plan: topology, fidelity, latency factor, host costs, the IB model's size factors.
void set_up_world(SimWorld& world, const core::Plan& plan, const core::RankPlan& ranks,
                  const SimPlatform& platform, Fidelity fidelity, int bytes_per_element,
                  int direct);

// simulate_here for a plan with `parallelism:` (sim/simulate_model_parallel.cpp).
core::RunResult simulate_model_parallel_here(const core::Plan& plan, const SimOptions& options);

}  // namespace scaleout::sim
