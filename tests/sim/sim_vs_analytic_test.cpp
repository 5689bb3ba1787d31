// On contention-free cases (a non-blocking switch, CM02: no TCP corrections) the simulator and the
// closed forms must agree closely. Tolerance: 2% of the step time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analytic/analytic.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

constexpr double kTolerance = 0.02;

TEST(SimVsAnalytic, AgreeWithinTwoPercentOnANonBlockingSwitch) {
  core::Cluster cluster = testing::switch_cluster(8, 12.5e9, 2e-6);
  int checked = 0;
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kHalvingDoubling,
                    core::StrategyKind::kTorus2d})
    for (int n : {4, 8, 16, 64, 128})
      for (double params : {2.5e5, 2.5e7}) {  // 1 MB and 100 MB of fp32 gradient
        core::Plan plan = testing::collective_plan(cluster, kind, n, params);
        core::RunResult sim = simulate(plan);
        core::RunResult ana = predict_analytic(plan);
        double err = std::fabs(sim.step_time_s - ana.step_time_s) / sim.step_time_s;
        EXPECT_LT(err, kTolerance)
            << core::strategy_name(kind) << " n=" << n << " params=" << params << ": sim "
            << sim.step_time_s << " s, analytic " << ana.step_time_s << " s";
        ++checked;
      }
  EXPECT_EQ(checked, 30);
}

// The strategies with one leader per node: the tree (chains inside nodes, a double binary tree
// across them) and the reductions to a leader with a ring or halving-doubling across nodes, from
// one node to sixteen, 1 MB (one chunk), 10 MB (a chunk and a small remainder) and 100 MB.
TEST(SimVsAnalytic, NodeAwareStrategiesAgreeWithinTwoPercent) {
  core::Cluster cluster = testing::switch_cluster(8, 12.5e9, 2e-6);
  int checked = 0;
  for (auto kind : {core::StrategyKind::kTree, core::StrategyKind::kHierarchicalAllreduce,
                    core::StrategyKind::kHierarchicalHalvingDoubling})
    for (int n : {8, 16, 24, 64, 128})
      for (double params : {2.5e5, 2.5e6, 2.5e7}) {
        core::Plan plan = testing::collective_plan(cluster, kind, n, params);
        core::RunResult sim = simulate(plan);
        core::RunResult ana = predict_analytic(plan);
        double err = std::fabs(sim.step_time_s - ana.step_time_s) / sim.step_time_s;
        EXPECT_LT(err, kTolerance)
            << core::strategy_name(kind) << " n=" << n << " params=" << params << ": sim "
            << sim.step_time_s << " s, analytic " << ana.step_time_s << " s";
        EXPECT_TRUE(ana.warnings.empty()) << core::strategy_name(kind) << " n=" << n;
        ++checked;
      }
  EXPECT_EQ(checked, 45);
}

TEST(SimVsAnalytic, NonPowerOfTwoHalvingDoublingAndOneRankPerNode) {
  core::Cluster cluster = testing::switch_cluster(1, 12.5e9, 5e-6);
  for (int n : {3, 6, 12}) {
    core::Plan plan =
        testing::collective_plan(cluster, core::StrategyKind::kHalvingDoubling, n, 2.5e6);
    double sim = simulate(plan).step_time_s, ana = predict_analytic(plan).step_time_s;
    EXPECT_LT(std::fabs(sim - ana) / sim, kTolerance)
        << "n=" << n << " sim " << sim << " analytic " << ana;
  }
}

TEST(SimVsAnalytic, TcpModelCorrectionsAreInTheClosedForms) {
  // LV08: latency x13.01, bandwidth x0.97 and 5% cross-traffic; 4-GPU nodes on 25 Gb/s.
  core::Cluster cluster = testing::switch_cluster(4, 3.125e9, 5e-6, 12e9, 2e-6);
  cluster.network_model = "lv08";
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kTorus2d,
                    core::StrategyKind::kHalvingDoubling, core::StrategyKind::kHierarchicalRing,
                    core::StrategyKind::kPs, core::StrategyKind::kTree,
                    core::StrategyKind::kHierarchicalAllreduce,
                    core::StrategyKind::kHierarchicalHalvingDoubling})
    for (int n : {4, 16, 64}) {
      core::Plan plan = testing::collective_plan(cluster, kind, n, 2.5e7);
      double sim = simulate(plan).step_time_s, ana = predict_analytic(plan).step_time_s;
      EXPECT_LT(std::fabs(sim - ana) / sim, kTolerance)
          << core::strategy_name(kind) << " n=" << n << " sim " << sim << " analytic " << ana;
    }
}

// The IB model applies SMPI's factors by message size (latency x1.6 to x11.6, bandwidth x0.34 to
// x1.09) and LV08's cross-traffic; with one flow in and one out per host it adds no penalty, so
// the closed forms hold there. Chunks of 62.5 KB and 1.56 MB fall in different size classes.
TEST(SimVsAnalytic, IbModelFactorsBySizeAreInTheClosedForms) {
  core::Cluster cluster = testing::switch_cluster(4, 12.5e9, 2e-6, 100e9, 1e-6);
  cluster.network_model = "ib";
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kHalvingDoubling,
                    core::StrategyKind::kHierarchicalRing})
    for (int n : {4, 16, 64})
      for (double params : {2.5e5, 2.5e7}) {
        core::Plan plan = testing::collective_plan(cluster, kind, n, params);
        core::RunResult ana = predict_analytic(plan);
        EXPECT_TRUE(ana.warnings.empty()) << ana.warnings.front();
        double sim = simulate(plan).step_time_s;
        EXPECT_LT(std::fabs(sim - ana.step_time_s) / sim, kTolerance)
            << core::strategy_name(kind) << " n=" << n << " params=" << params << ": sim " << sim
            << " analytic " << ana.step_time_s;
      }
  // Fast fidelity (a run of steps as one message) costs what every step on its own costs.
  core::Plan ring = testing::collective_plan(cluster, core::StrategyKind::kRing, 16, 2.5e5);
  SimOptions step;
  step.fidelity = Fidelity::kStep;
  double fast = simulate(ring).step_time_s, each = simulate(ring, step).step_time_s;
  EXPECT_LT(std::fabs(fast - each) / each, 0.005) << "fast " << fast << " step " << each;
}

// Where the IB model's penalties for several flows at one host matter, the result says so.
TEST(SimVsAnalytic, IbPenaltiesOutsideTheClosedFormSaySo) {
  core::Cluster cluster = testing::switch_cluster(1, 12.5e9, 2e-6);
  cluster.network_model = "ib";
  core::Plan ps = testing::collective_plan(cluster, core::StrategyKind::kPs, 8, 2.5e6);
  auto w = predict_analytic(ps).warnings;
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("IB model"), std::string::npos) << w[0];
  core::Plan torus = testing::collective_plan(cluster, core::StrategyKind::kTorus2d, 64, 2.5e5);
  EXPECT_EQ(analytic_warnings(torus).size(), 1u);
}

// The parameter server's closed form shares links max-min fairly among the program's flows, as
// the simulator's network model does: colocated servers (whose node's NIC also carries its
// workers' traffic) and oversubscribed rack uplinks (shared by every flow leaving the rack) are
// held within 2% (5% on two multi-GPU nodes, where the simulator was seen 3-4% slower), and say
// nothing.
void expect_ps_agrees(const core::Plan& plan, const std::string& what,
                      double tolerance = kTolerance) {
  core::RunResult sim = simulate(plan), ana = predict_analytic(plan);
  EXPECT_TRUE(ana.warnings.empty()) << what << ": " << ana.warnings.front();
  double err = std::fabs(sim.step_time_s - ana.step_time_s) / sim.step_time_s;
  EXPECT_LT(err, tolerance) << what << ": sim " << sim.step_time_s << " s, analytic "
                            << ana.step_time_s << " s";
}

TEST(SimVsAnalytic, ColocatedParameterServersAgreeWithinTwoPercent) {
  for (int per_node : {1, 4})
    for (int servers : {1, 4})
      for (int n : {8, 16, 64}) {
        core::Cluster cluster = testing::switch_cluster(per_node, 3.125e9, 5e-6);
        core::Plan plan = testing::collective_plan(cluster, core::StrategyKind::kPs, n, 2.5e7);
        plan.strategy.ps_servers = servers;
        plan.strategy.ps_placement = core::PsPlacement::kColocated;
        bool two_nodes = per_node > 1 && n == 2 * per_node;
        expect_ps_agrees(plan,
                         std::to_string(servers) + " colocated servers, " +
                             std::to_string(per_node) + " per node, n=" + std::to_string(n),
                         two_nodes ? 0.05 : kTolerance);
      }
}

TEST(SimVsAnalytic, ParameterServersBehindOversubscribedUplinksAgreeWithinTwoPercent) {
  // Racks of four 4-GPU nodes on 25 Gb/s NICs, 50 Gb/s uplinks (2:1): with 8 servers the rack
  // uplinks, not the servers' NICs, bound the step (the NIC-only form was 2x fast).
  core::Cluster cluster = testing::switch_cluster(4, 3.125e9, 5e-6);
  cluster.network.kind = core::NetworkKind::kTwoTier;
  cluster.network.hosts_per_rack = 4;
  cluster.network.uplink = {2 * cluster.nic.bandwidth, 2e-6};
  for (int servers : {2, 8})
    for (int n : {16, 32, 64}) {
      core::Plan plan = testing::collective_plan(cluster, core::StrategyKind::kPs, n, 2.5e7);
      plan.strategy.ps_servers = servers;
      expect_ps_agrees(plan, std::to_string(servers) + " servers, n=" + std::to_string(n));
    }
}

// The asynchronous PS: one device per node on 10 Gb/s, 40 MB of gradient, 0.1 s of compute, 10
// steps. The closed form's cycle is max(compute + own pull and push, N shards over a server's
// link), plus the start (every worker pulling at once) counted once over the run, as the
// simulator's makespan counts it; held within 5% at 16-64 workers on 1 or 2 shards.
core::Plan async_ps_plan(int workers, int servers) {
  core::Plan p = testing::collective_plan(testing::switch_cluster(1, 1.25e9, 5e-6),
                                          core::StrategyKind::kPs, workers, 1e7);
  p.workload.flops_per_sample = 1e13;  // at 100 TFLOPS: 0.1 s
  p.training.steps = 10;
  p.strategy.ps_mode = core::PsMode::kAsync;
  p.strategy.ps_servers = servers;
  return p;
}

TEST(SimVsAnalytic, AsynchronousPsAgreesWithinFivePercentWhereHeld) {
  for (int servers : {1, 2})
    for (int n : {16, 32, 64}) {
      core::Plan plan = async_ps_plan(n, servers);
      core::RunResult sim = simulate(plan), ana = predict_analytic(plan);
      EXPECT_TRUE(ana.warnings.empty()) << ana.warnings.front();
      EXPECT_NEAR(ana.step_time_s / sim.step_time_s, 1.0, 0.05)
          << servers << " shards, n=" << n << ": sim " << sim.step_time_s << " s, analytic "
          << ana.step_time_s << " s";
    }
}

// Where it is not held, it says so, and there it is indeed more than 5% off: near the crossover
// of the worker's own cycle and the servers' links (8 workers on 2 shards), and with 4-GPU nodes
// on 25 GbE under LV08.
TEST(SimVsAnalytic, AsynchronousPsOutsideItsHeldRangeSaysSo) {
  core::Plan crossover = async_ps_plan(8, 2);
  core::Plan ethernet = async_ps_plan(16, 2);  // ResNet-50's gradient and a 23 ms step
  ethernet.cluster = testing::switch_cluster(4, 3.125e9, 5e-6, 12e9, 2e-6);
  ethernet.cluster.network_model = "lv08";
  ethernet.workload.parameters = 2.56e7;
  ethernet.workload.flops_per_sample = 2.34e12;
  ethernet.training.steps = 6;
  for (const core::Plan& plan : {crossover, ethernet}) {
    core::RunResult sim = simulate(plan), ana = predict_analytic(plan);
    EXPECT_EQ(ana.warnings.size(), 1u) << plan.training.workers << " workers";
    EXPECT_GT(std::fabs(ana.step_time_s / sim.step_time_s - 1), 0.05)
        << "no longer outside: narrow the warning";
  }
}

// Where the closed form is outside what these tests hold it to, the result says so. The tree's
// closed form used to be held within 20% only and said so; it now follows the program's steps
// and is held within 2% on whole nodes (above), so it says nothing there; on a partial last node
// (seen 6% off at 1 MB) it says so.
TEST(SimVsAnalytic, ClosedFormsOutsideTheirTestedRangeSaySo) {
  core::Cluster cluster = testing::switch_cluster(4, 3.125e9, 5e-6);
  core::Plan ring = testing::collective_plan(cluster, core::StrategyKind::kRing, 16, 2.5e7);
  EXPECT_TRUE(predict_analytic(ring).warnings.empty());
  core::Plan tree = testing::collective_plan(cluster, core::StrategyKind::kTree, 16, 2.5e7);
  EXPECT_TRUE(predict_analytic(tree).warnings.empty());
  tree.training.workers = 14;  // nodes of 4: the last one holds 2
  ASSERT_EQ(analytic_warnings(tree).size(), 1u);
  EXPECT_NE(analytic_warnings(tree)[0].find("tree"), std::string::npos);
  core::Plan colocated = testing::collective_plan(cluster, core::StrategyKind::kPs, 16, 2.5e7);
  colocated.strategy.ps_placement = core::PsPlacement::kColocated;
  EXPECT_TRUE(analytic_warnings(colocated).empty());  // held above
  colocated.strategy.ps_mode = core::PsMode::kAsync;  // not held: says so
  auto said = analytic_warnings(colocated);
  EXPECT_TRUE(std::any_of(said.begin(), said.end(), [](const std::string& w) {
    return w.find("colocated") != std::string::npos;
  }));
  core::Plan racks = ring;
  racks.cluster.network.kind = core::NetworkKind::kTwoTier;
  racks.cluster.network.hosts_per_rack = 4;
  racks.cluster.network.uplink = {2 * cluster.nic.bandwidth, 1e-6};  // 4 NICs share 2 NICs' worth
  EXPECT_EQ(analytic_warnings(racks).size(), 1u);
  racks.cluster.network.uplink.bandwidth = 4 * cluster.nic.bandwidth;  // not oversubscribed
  EXPECT_TRUE(analytic_warnings(racks).empty());
}

}  // namespace
}  // namespace scaleout::sim
