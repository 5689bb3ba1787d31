// Behaviour the field knows, asserted on the simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analytic/analytic.hpp"
#include "core/plan/plan_loader.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

using core::StrategyKind;
constexpr double kNic = 12.5e9;  // 100 Gb/s

TEST(Behaviour, RingBusBandwidthApproachesTheNicAsTheGradientGrows) {
  core::Cluster cluster = testing::switch_cluster(1, kNic, 5e-6);
  double previous = 0;
  for (double params : {2.5e4, 2.5e5, 2.5e6, 2.5e7, 2.5e8}) {
    core::RunResult r =
        simulate(testing::collective_plan(cluster, StrategyKind::kRing, 16, params));
    EXPECT_GT(r.busbw_Bps, previous) << "params " << params;
    previous = r.busbw_Bps;
  }
  EXPECT_GT(previous, 0.97 * kNic);
  EXPECT_LE(previous, kNic * 1.0001);
}

TEST(Behaviour, ParameterServerTakesMaxOfWorkerAndServerLinkPerExchange) {
  core::Cluster cluster = testing::switch_cluster(1, kNic, 2e-6);
  double bytes = 4e8;  // 1e8 fp32 parameters
  struct Case {
    int workers, servers;
  };
  for (Case c : {Case{8, 1}, Case{8, 8}, Case{16, 4}, Case{4, 8}}) {
    core::Plan plan = testing::collective_plan(cluster, StrategyKind::kPs, c.workers, bytes / 4);
    plan.strategy.ps_servers = c.servers;
    core::RunResult r = simulate(plan);
    double bound = std::max(bytes / kNic, c.workers * bytes / (c.servers * kNic));
    double per_exchange = r.phases.comm_s / 2;  // push, then pull
    EXPECT_NEAR(per_exchange / bound, 1.0, 0.03)
        << c.workers << " workers, " << c.servers << " servers";
  }
}

TEST(Behaviour, TorusBeatsRingWhenLatencyDominates) {
  core::Cluster cluster = testing::switch_cluster(8, kNic, 5e-6);
  double small = 2.5e5;  // 1 MB
  double ring =
      simulate(testing::collective_plan(cluster, StrategyKind::kRing, 256, small)).phases.comm_s;
  double torus =
      simulate(testing::collective_plan(cluster, StrategyKind::kTorus2d, 256, small)).phases.comm_s;
  EXPECT_LT(torus, 0.5 * ring) << "ring " << ring << " s, torus " << torus << " s";
}

core::Cluster two_tier(double uplink_Bps) {
  core::Cluster c = testing::switch_cluster(1, kNic, 2e-6);
  c.network.kind = core::NetworkKind::kTwoTier;
  c.network.hosts_per_rack = 4;
  c.network.uplink = {uplink_Bps, 2e-6};
  return c;
}

TEST(Behaviour, OversubscribedUplinkSlowsTheRingAndShowsInItsUtilization) {
  double params = 2.5e7;
  core::RunResult fast =
      simulate(testing::collective_plan(two_tier(100 * kNic), StrategyKind::kRing, 8, params));
  core::RunResult slow =
      simulate(testing::collective_plan(two_tier(kNic / 4), StrategyKind::kRing, 8, params));
  EXPECT_GT(slow.step_time_s, 3 * fast.step_time_s);
  auto busiest =
      std::max_element(slow.links.begin(), slow.links.end(),
                       [](const auto& a, const auto& b) { return a.utilization < b.utilization; });
  ASSERT_NE(busiest, slow.links.end());
  EXPECT_NE(busiest->name.find("uplink"), std::string::npos) << busiest->name;
  EXPECT_GT(busiest->utilization, 0.8);
  for (const auto& l : fast.links)
    if (l.name.find("uplink") != std::string::npos) EXPECT_LT(l.utilization, 0.05) << l.name;
}

TEST(Behaviour, OverlapNeverMakesAStepSlower) {
  core::Plan base = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  base.training.steps = 1;
  for (auto kind : {StrategyKind::kRing, StrategyKind::kTorus2d, StrategyKind::kPs,
                    StrategyKind::kHalvingDoubling})
    for (int n : {8, 64}) {
      core::Plan plan = base;
      plan.strategy.kind = kind;
      plan.training.workers = n;
      plan.training.overlap = false;
      double without = simulate(plan).step_time_s;
      plan.training.overlap = true;
      double with = simulate(plan).step_time_s;
      EXPECT_LE(with, without * (1 + 1e-9)) << core::strategy_name(kind) << " n=" << n;
    }
}

TEST(Behaviour, LinkBytesMatchWhatTheRingMoves) {
  // Each of 4 single-device nodes sends 2(N-1)/N of the gradient out of its NIC.
  core::Cluster cluster = testing::switch_cluster(1, kNic, 2e-6);
  double params = 1e6, bytes = 4e6;
  core::RunResult r = simulate(testing::collective_plan(cluster, StrategyKind::kRing, 4, params));
  int nics = 0;
  for (const auto& l : r.links)
    if (l.name.find("-nic") != std::string::npos) {
      ++nics;
      EXPECT_NEAR(l.bytes, 2 * 2.0 * 3 / 4 * bytes, 1.0) << l.name;  // out and in
    }
  EXPECT_EQ(nics, 4);
}

// Bytes through node `node`'s NIC, both directions together.
double nic_bytes(const core::RunResult& r, int node) {
  std::string name = "node" + std::to_string(node) + "-nic";
  for (const auto& l : r.links)
    if (l.name == name) return l.bytes;
  ADD_FAILURE() << "no link " << name;
  return 0;
}

// Two nodes of 8 devices, 150 GB/s inside a node, a 100 Gb/s NIC, 100 MB of gradient (S).
// By hand: a ring in rank order crosses each NIC once per step each way, 2(N-1) steps of S/N:
// 2(N-1)/N S = 1.875 S out and as much in. Reduced into one leader per node, only the leaders'
// ring of m = 2 crosses: 2(m-1)/m S = S each way. The tree's two trees link the two leaders in
// opposite directions, each with half of S, up and then down: S each way. (A tree that ignores
// nodes sent the whole gradient of each of node 1's 8 devices to a parent on node 0: 8 S.)
// Step times: the ring needs at least its NIC bytes at the NIC's rate, 1.875 S/B. The tree's
// closed form is S/B plus the chains' fill, 2 (g-1) steps of a chunk pair at the intra-node rate,
// plus each of its ceil(S/2c) chunk steps' latency, twice: so the tree takes at most
// S/B + 2(g-1)(2 l_i + 2c/B_i) + 2 ceil(S/2c)(2 l_i + 2 l_nic), 0.6x the ring here, where the tree
// that ignored nodes was about 10x slower than the ring.
TEST(Behaviour, NodeAwareStrategiesSpareTheNic) {
  double bw_i = 150e9, l_i = 1e-6, l_nic = 2e-6, params = 2.5e7, S = 4 * params;
  core::Cluster cluster = testing::switch_cluster(8, kNic, l_nic, bw_i, l_i);
  auto run = [&](StrategyKind kind) {
    return simulate(testing::collective_plan(cluster, kind, 16, params));
  };
  core::RunResult ring = run(StrategyKind::kRing), tree = run(StrategyKind::kTree);
  core::RunResult leaders = run(StrategyKind::kHierarchicalAllreduce);
  core::RunResult leaders_hd = run(StrategyKind::kHierarchicalHalvingDoubling);
  for (int node : {0, 1}) {
    EXPECT_NEAR(nic_bytes(ring, node), 2 * 1.875 * S, 1e-6 * S);
    EXPECT_NEAR(nic_bytes(leaders, node), 2 * S, 1e-6 * S);
    EXPECT_NEAR(nic_bytes(leaders_hd, node), 2 * S, 1e-6 * S);
    EXPECT_NEAR(nic_bytes(tree, node), 2 * S, 1e-6 * S);
  }
  double c = 4.0 * 1024 * 1024, g = 8;
  double tree_bound = S / kNic + 2 * (g - 1) * (2 * l_i + 2 * c / bw_i) +
                      2 * std::ceil(S / (2 * c)) * (2 * l_i + 2 * l_nic);
  double ring_floor = 1.875 * S / kNic;
  EXPECT_LE(tree.phases.comm_s, tree_bound);
  EXPECT_GE(ring.phases.comm_s, ring_floor);
  EXPECT_LT(tree.phases.comm_s, 0.6 * ring.phases.comm_s);
  EXPECT_LT(tree_bound / ring_floor, 0.6);
}

// Phases add up for every strategy and engine, with and without stragglers and asynchrony:
// exposed communication is at most the communication and the step; compute, exposed and idle
// make the step.
TEST(Behaviour, PhasesAddUpForEveryStrategy) {
  core::Cluster cluster = testing::switch_cluster(2, 3.125e9, 5e-6);
  cluster.network_model = "lv08";
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kTorus2d,
                    core::StrategyKind::kHierarchicalRing, core::StrategyKind::kHalvingDoubling,
                    core::StrategyKind::kTree, core::StrategyKind::kPs,
                    core::StrategyKind::kHierarchicalAllreduce,
                    core::StrategyKind::kHierarchicalHalvingDoubling})
    for (int variant = 0; variant < 3; ++variant) {
      core::Plan plan = testing::collective_plan(cluster, kind, 8, 2.5e6);
      plan.training.steps = 3;
      if (variant == 1) {
        plan.stragglers.slow_workers = {3};
        plan.stragglers.slow_factor = 3;
      }
      if (variant == 2 && kind != core::StrategyKind::kPs) continue;
      if (variant == 2) plan.strategy.ps_mode = core::PsMode::kAsync;
      for (const core::RunResult& r : {simulate(plan), predict_analytic(plan)}) {
        SCOPED_TRACE(r.engine + " " + r.strategy + " variant " + std::to_string(variant));
        const auto& p = r.phases;
        EXPECT_LE(p.exposed_comm_s, p.comm_s + 1e-12);
        EXPECT_LE(p.exposed_comm_s, r.step_time_s + 1e-12);
        EXPECT_GE(p.idle_s, 0);
        if (r.step_time_s >= p.compute_s)
          EXPECT_NEAR(p.compute_s + p.exposed_comm_s + p.idle_s, r.step_time_s,
                      1e-9 * r.step_time_s);
        EXPECT_GT(r.scaling_efficiency, 0);
        EXPECT_LE(r.scaling_efficiency, 1 + 1e-12);
      }
    }
}

}  // namespace
}  // namespace scaleout::sim
