// The sizes people train on today: 16,384 ranks simulated to the end on this machine's default
// limits (the actors' stacks then come from the heap: sim/actor_stacks.*), checked against the
// closed forms on a contention-free switch (CM02), as the small sizes are in sim_vs_analytic_test.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "analytic/analytic.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

void expect_close_to_analytic(core::StrategyKind kind, int workers) {
  core::Cluster cluster = testing::switch_cluster(8, 12.5e9, 2e-6);
  core::Plan plan = testing::collective_plan(cluster, kind, workers, 2.5e7);  // 100 MB fp32
  auto t0 = std::chrono::steady_clock::now();
  core::RunResult sim = simulate(plan);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  core::RunResult ana = predict_analytic(plan);
  double err = std::fabs(sim.step_time_s - ana.step_time_s) / sim.step_time_s;
  EXPECT_LT(err, 0.02) << core::strategy_name(kind) << " n=" << workers << ": sim "
                       << sim.step_time_s << " s, analytic " << ana.step_time_s << " s";
  EXPECT_EQ(sim.workers, workers);
  std::printf("%s at %d ranks: %.1f s to simulate, step %.4f s (analytic %.4f s)\n",
              core::strategy_name(kind), workers, wall, sim.step_time_s, ana.step_time_s);
}

TEST(Scale, RingAt16384RanksAgreesWithTheClosedForm) {
  expect_close_to_analytic(core::StrategyKind::kRing, 16384);
}

TEST(Scale, Torus2dAt16384RanksAgreesWithTheClosedForm) {
  expect_close_to_analytic(core::StrategyKind::kTorus2d, 16384);
}

}  // namespace
}  // namespace scaleout::sim
