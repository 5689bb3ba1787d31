// Host software costs (`host:`) in the collective strategies: what they add to a ring, derived by
// hand, and the simulator against the closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "analytic/analytic.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

// One device per node on a CM02 switch: every message of a ring crosses two NICs.
core::Plan one_per_node(core::StrategyKind kind, int workers, double parameters,
                        core::HostCosts host) {
  core::Cluster cluster = testing::switch_cluster(1, 12.5e9, 2e-6);
  cluster.host = host;
  return testing::collective_plan(cluster, kind, workers, parameters);
}

double sim_step(const core::Plan& p, Fidelity fidelity = Fidelity::kFast) {
  SimOptions options;
  options.fidelity = fidelity;
  return simulate(p, options).step_time_s;
}

// A ring all-reduce of S bytes over N ranks runs 2(N-1) steps of S/N bytes: N-1 reduce-scatter
// steps, whose receiver adds its chunk before forwarding it, and N-1 all-gather steps, which only
// overwrite. On every rank at once, so each step waits for its own host work:
//   summing at R adds (N-1) S / (N R) (not 2(N-1)/N: the all-gather adds nothing),
//   copying at C adds 2(N-1) S / (N C), and an overhead o per message 2(N-1) o.
TEST(CollectiveHostCosts, RingStepAddsHandDerivedHostTime) {
  const double params = 2.5e7, bytes = 4 * params;  // 100 MB
  const double sum_rate = 1e9, copy_rate = 4e9, overhead = 1e-3;
  for (Fidelity fidelity : {Fidelity::kFast, Fidelity::kStep})
    for (int n : {2, 4, 8}) {
      double before = sim_step(one_per_node(core::StrategyKind::kRing, n, params, {}), fidelity);
      auto added = [&](core::HostCosts h) {
        return sim_step(one_per_node(core::StrategyKind::kRing, n, params, h), fidelity) - before;
      };
      // 100 MB at 1 GB/s: 50 ms for 2 ranks, 87.5 ms for 8; the tolerance is 0.1% of that.
      double sum = (n - 1) * bytes / (n * sum_rate);
      EXPECT_NEAR(added({0, 0, sum_rate, 0}), sum, 1e-3 * sum) << n << " ranks";
      double copy = 2.0 * (n - 1) * bytes / (n * copy_rate);
      EXPECT_NEAR(added({0, copy_rate, 0, 0}), copy, 1e-3 * copy) << n << " ranks";
      double messages = 2.0 * (n - 1) * overhead;
      EXPECT_NEAR(added({overhead, 0, 0, 0}), messages, 1e-3 * messages) << n << " ranks";
    }
}

// Messages inside a node pay nothing: a ring within one 4-device node is unchanged.
TEST(CollectiveHostCosts, MessagesInsideANodeAreFree) {
  core::Cluster cluster = testing::switch_cluster(4, 12.5e9, 2e-6);
  core::Plan plain = testing::collective_plan(cluster, core::StrategyKind::kRing, 4, 2.5e6);
  core::Plan costly = plain;
  costly.cluster.host = {1e-3, 1e9, 1e9, 0};
  EXPECT_EQ(sim_step(plain), sim_step(costly));
  EXPECT_EQ(predict_analytic(plain).step_time_s, predict_analytic(costly).step_time_s);
}

TEST(CollectiveHostCosts, SimulatorAndClosedFormAgreeWithinTwoPercentOnASwitch) {
  int checked = 0;
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kHalvingDoubling})
    for (core::HostCosts h : {core::HostCosts{40e-6, 8e9, 4e9, 0}, core::HostCosts{200e-6, 0, 0, 0},
                              core::HostCosts{0, 0, 1e9, 0}})
      for (int n : {4, 6, 16})
        for (double params : {2.5e5, 2.5e7}) {
          core::Plan plan = one_per_node(kind, n, params, h);
          double sim = sim_step(plan), ana = predict_analytic(plan).step_time_s;
          EXPECT_LT(std::fabs(sim - ana) / sim, 0.02)
              << core::strategy_name(kind) << ", overhead " << h.message_overhead << " copy "
              << h.copy_rate << " sum " << h.sum_rate << ", " << n << " workers, " << params
              << " parameters: sim " << sim << " s, analytic " << ana << " s";
          ++checked;
        }
  EXPECT_EQ(checked, 36);
}

// Nodes of 4: the costs fall on the messages that cross NICs only (hierarchical ring's ring of
// nodes, torus2d's columns).
TEST(CollectiveHostCosts, MultiDeviceNodesSimulatorAndClosedFormAgree) {
  core::Cluster cluster = testing::switch_cluster(4, 12.5e9, 2e-6);
  cluster.host = {40e-6, 8e9, 2e9, 0};
  for (auto kind : {core::StrategyKind::kHierarchicalRing, core::StrategyKind::kTorus2d})
    for (int n : {8, 16}) {
      core::Plan plan = testing::collective_plan(cluster, kind, n, 2.5e7);
      double sim = sim_step(plan, Fidelity::kStep), ana = predict_analytic(plan).step_time_s;
      EXPECT_LT(std::fabs(sim - ana) / sim, 0.02)
          << core::strategy_name(kind) << ", " << n << " workers: sim " << sim << " s, analytic "
          << ana << " s";
    }
}

// The tree family: the simulator steps through the pipelined tree and the leaders' ring or
// halving-doubling; the closed forms charge each step's sends one after another and the sums
// before a receiver's next step.
TEST(CollectiveHostCosts, HierarchicalAllReducesSimulatorAndClosedFormAgree) {
  for (auto kind : {core::StrategyKind::kHierarchicalAllreduce,
                    core::StrategyKind::kHierarchicalHalvingDoubling})
    for (int per_node : {1, 4})
      for (int nodes : {4, 6}) {
        core::Cluster cluster = testing::switch_cluster(per_node, 12.5e9, 2e-6);
        cluster.host = {40e-6, 8e9, 2e9, 0};
        core::Plan plan = testing::collective_plan(cluster, kind, per_node * nodes, 2.5e7);
        double sim = sim_step(plan, Fidelity::kStep), ana = predict_analytic(plan).step_time_s;
        EXPECT_LT(std::fabs(sim - ana) / sim, 0.02)
            << core::strategy_name(kind) << ", " << nodes << " nodes of " << per_node << ": sim "
            << sim << " s, analytic " << ana << " s";
      }
}

// Where the closed form was seen off the simulator with host costs (a ring over 4-device nodes:
// 16% above; the tree: 6-7% above), its result says so, and the simulator's does not.
TEST(CollectiveHostCosts, ClosedFormsSeenOffSaySo) {
  auto says = [](const core::RunResult& r, const char* what) {
    for (const auto& w : r.warnings)
      if (w.find(what) != std::string::npos) return true;
    return false;
  };
  core::Cluster four = testing::switch_cluster(4, 12.5e9, 2e-6);
  four.host = {40e-6, 8e9, 2e9, 0};
  core::Plan ring = testing::collective_plan(four, core::StrategyKind::kRing, 8, 2.5e7);
  EXPECT_TRUE(says(predict_analytic(ring), "16% above"));
  EXPECT_FALSE(says(simulate(ring), "16% above"));
  core::Plan tree = one_per_node(core::StrategyKind::kTree, 4, 2.5e7, {40e-6, 8e9, 2e9, 0});
  EXPECT_TRUE(says(predict_analytic(tree), "6-7% above"));
  // Without host costs, or one device per node for the ring, no such warning.
  EXPECT_FALSE(
      says(predict_analytic(one_per_node(core::StrategyKind::kTree, 4, 2.5e7, {})), "6-7% above"));
  EXPECT_FALSE(says(
      predict_analytic(one_per_node(core::StrategyKind::kRing, 8, 2.5e7, {40e-6, 8e9, 2e9, 0})),
      "16% above"));
  // The tree's closed form still charges the costs (it is above, not below, the simulator).
  EXPECT_GT(predict_analytic(tree).step_time_s, simulate(tree).step_time_s);
}

}  // namespace
}  // namespace scaleout::sim
