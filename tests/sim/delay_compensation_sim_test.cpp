// Delay compensation on the asynchronous parameter server in the simulator and the closed form:
// each push costs its server the compensated update (and each pull a copy), which the servers'
// cycle pays N times and each worker's own cycle once; both engines agree where the plain
// asynchronous form is held, and report the cost.
#include <gtest/gtest.h>

#include <cmath>

#include "analytic/analytic.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

// As the plain asynchronous PS is held (sim_vs_analytic_test): one device per node on 10 Gb/s,
// 40 MB of gradient, 0.1 s of compute, 10 steps.
core::Plan compensated_plan(int workers, int servers, bool on) {
  core::Plan p = testing::collective_plan(testing::switch_cluster(1, 1.25e9, 5e-6),
                                          core::StrategyKind::kPs, workers, 1e7);
  p.workload.flops_per_sample = 1e13;
  p.training.steps = 10;
  p.strategy.ps_mode = core::PsMode::kAsync;
  p.strategy.ps_servers = servers;
  p.strategy.delay_compensation.on = on;
  return p;
}

TEST(DelayCompensationSim, SimAndClosedFormAgreeWithinFivePercent) {
  struct Case {
    int workers, servers;
  };
  // Server-bound (16, 32 workers: N pushes of update each a cycle) and worker-bound (2 workers:
  // one update on each worker's own cycle).
  for (Case c : {Case{16, 1}, Case{32, 1}, Case{16, 2}, Case{32, 2}, Case{2, 1}}) {
    core::Plan plan = compensated_plan(c.workers, c.servers, true);
    core::RunResult sim = simulate(plan), ana = predict_analytic(plan);
    EXPECT_NEAR(ana.step_time_s / sim.step_time_s, 1.0, 0.05)
        << c.servers << " shards, n=" << c.workers << ": sim " << sim.step_time_s << " s, analytic "
        << ana.step_time_s << " s";
  }
}

TEST(DelayCompensationSim, TheServersPayAnUpdatePerPushInBothEngines) {
  // 16 workers on one server are server-bound: each cycle the server applies 16 updates of
  // 10M elements at the default 1.25G elements/s, 0.128 s more than without compensation.
  core::Plan off = compensated_plan(16, 1, false), on = compensated_plan(16, 1, true);
  double expected = 16 * 1e7 / on.cluster.host.compensate_rate;
  for (bool simulated : {true, false}) {
    core::RunResult a = simulated ? simulate(off) : predict_analytic(off);
    core::RunResult b = simulated ? simulate(on) : predict_analytic(on);
    EXPECT_NEAR(b.step_time_s - a.step_time_s, expected, 0.05 * expected)
        << a.engine << ": " << a.step_time_s << " s -> " << b.step_time_s << " s";
    ASSERT_TRUE(b.compensation);
    EXPECT_FALSE(a.compensation);
    EXPECT_DOUBLE_EQ(b.compensation->update_s, 1e7 / on.cluster.host.compensate_rate);
    EXPECT_DOUBLE_EQ(b.compensation->pulled_bytes, 16 * 4e7);
    // Compensation changes what is applied, not when gradients arrive relative to pulls.
    EXPECT_NEAR(b.staleness.mean, a.staleness.mean, 0.1 * a.staleness.mean + 0.5);
  }
}

}  // namespace
}  // namespace scaleout::sim
