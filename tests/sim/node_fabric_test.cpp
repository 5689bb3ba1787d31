// Rails and the fabric inside a node, checked against closed forms written out here and between
// the two engines (2% on contention-free cases, as tests/sim/sim_vs_analytic_test.cpp holds).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "analytic/analytic.hpp"
#include "core/plan/topology.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

using core::StrategyKind;
constexpr double kTolerance = 0.02;

double rel(double a, double b) { return std::fabs(a - b) / b; }

std::map<std::string, double> link_bytes(const core::RunResult& r) {
  std::map<std::string, double> out;
  for (const auto& l : r.links) out[l.name] = l.bytes;
  return out;
}

// A 64-node ring on one switch: two rails of B take as long as one NIC of 2B, in both engines.
TEST(Rails, TwoRailsOfBMatchOneNicOfTwoB) {
  for (int dpn : {1, 4}) {
    core::Cluster two = testing::switch_cluster(dpn, 12.5e9, 2e-6, 400e9, 1e-6);
    two.nics_per_node = 2;
    core::Cluster one = testing::switch_cluster(dpn, 25e9, 2e-6, 400e9, 1e-6);
    for (int n : {8, 64}) {
      core::Plan rails = testing::collective_plan(two, StrategyKind::kRing, n * dpn, 2.5e7);
      core::Plan fat = testing::collective_plan(one, StrategyKind::kRing, n * dpn, 2.5e7);
      double sim_rails = simulate(rails).step_time_s, sim_fat = simulate(fat).step_time_s;
      double ana_rails = predict_analytic(rails).step_time_s;
      double ana_fat = predict_analytic(fat).step_time_s;
      EXPECT_LT(rel(sim_rails, sim_fat), kTolerance)
          << dpn << "x" << n << ": " << sim_rails << " s vs " << sim_fat << " s";
      EXPECT_LT(rel(ana_rails, ana_fat), kTolerance) << ana_rails << " vs " << ana_fat;
      EXPECT_LT(rel(ana_rails, sim_rails), kTolerance) << ana_rails << " vs " << sim_rails;
    }
  }
}

// Every byte between nodes is striped: each rail carries half of what the single NIC carried.
TEST(Rails, LinkLoadsSplitEvenlyOverTheRails) {
  core::Cluster two = testing::switch_cluster(1, 12.5e9, 2e-6);
  two.nics_per_node = 2;
  core::Cluster one = testing::switch_cluster(1, 25e9, 2e-6);
  auto rails = link_bytes(simulate(testing::collective_plan(two, StrategyKind::kRing, 8, 2.5e6)));
  auto fat = link_bytes(simulate(testing::collective_plan(one, StrategyKind::kRing, 8, 2.5e6)));
  for (int n = 0; n < 8; ++n) {
    std::string nic = "node" + std::to_string(n) + "-nic";
    ASSERT_GT(fat[nic], 0) << nic;
    EXPECT_NEAR(rails[nic], fat[nic] / 2, fat[nic] * 1e-9) << nic;
    EXPECT_NEAR(rails[nic + "1"], fat[nic] / 2, fat[nic] * 1e-9) << nic << "1";
  }
}

// Other strategies and a parameter server over rails: the engines agree as on one NIC.
TEST(Rails, EnginesAgreeForEveryContentionFreeStrategy) {
  core::Cluster c = testing::switch_cluster(4, 12.5e9, 5e-6, 100e9, 1e-6);
  c.nics_per_node = 2;
  for (auto kind : {StrategyKind::kRing, StrategyKind::kHalvingDoubling, StrategyKind::kTorus2d,
                    StrategyKind::kHierarchicalRing, StrategyKind::kPs})
    for (int n : {8, 32}) {
      core::Plan plan = testing::collective_plan(c, kind, n, 2.5e7);
      double sim = simulate(plan).step_time_s, ana = predict_analytic(plan).step_time_s;
      EXPECT_LT(rel(ana, sim), kTolerance)
          << core::strategy_name(kind) << " n=" << n << ": sim " << sim << " analytic " << ana;
    }
}

core::Cluster pcie_box(int gpus_per_switch, double uplink_Bps, bool two_sockets) {
  core::Cluster c = testing::switch_cluster(8, 12.5e9, 2e-6, 32e9, 1e-6);
  c.intra_fabric.kind = core::IntraNodeKind::kPcieTree;
  c.intra_fabric.gpus_per_switch = gpus_per_switch;
  c.intra_fabric.switch_uplink = {uplink_Bps, 2e-6};
  if (two_sockets) c.intra_fabric.socket_link = core::LinkSpec{20e9, 3e-6};
  return c;
}

// One 8-GPU box, two PCIe switches of four: a ring's steps are as slow as the flow that crosses
// the uplinks (and the socket link), 2(N-1) steps of alpha + S/(N B_min).
TEST(PcieTree, RingIsBoundByTheUplinkItCrosses) {
  const double bytes = 1e8;
  for (bool sockets : {false, true}) {
    core::Plan plan =
        testing::collective_plan(pcie_box(4, 16e9, sockets), StrategyKind::kRing, 8, bytes / 4);
    // GPU 3 -> GPU 4: its link, uplink 0 up, (socket link), uplink 1 down, GPU 4's link.
    double alpha = 1e-6 + 2e-6 + 2e-6 + 1e-6 + (sockets ? 3e-6 : 0);
    double b_min =
        16e9;  // the uplinks; the socket link (20 GB/s) and GPU links (32 GB/s) are faster
    double closed = 2 * 7 * (alpha + bytes / 8 / b_min);
    AnalyticModel model(plan.cluster, 8);
    EXPECT_NEAR(model.exchange_time(plan, bytes), closed, closed * 1e-12);
    double sim = simulate(plan).phases.comm_s;
    EXPECT_LT(rel(sim, closed), kTolerance) << "sim " << sim << " closed form " << closed;
    // All eight behind one switch: the uplink is never crossed, the GPU links set the pace.
    core::Plan one_switch =
        testing::collective_plan(pcie_box(8, 16e9, sockets), StrategyKind::kRing, 8, bytes / 4);
    double inside = 2 * 7 * (2e-6 + bytes / 8 / 32e9);
    EXPECT_NEAR(AnalyticModel(one_switch.cluster, 8).exchange_time(one_switch, bytes), inside,
                inside * 1e-12);
  }
}

// Flows that share an uplink (every GPU of a switch sending out of the node at once) in both
// engines, and the strategies of the sim-vs-analytic test on PCIe boxes. With two sockets the
// closed form is 2.1% above the simulator for some strategies: 3% there, and a warning.
TEST(PcieTree, EnginesAgreeOnPcieBoxes) {
  for (bool sockets : {false, true})
    for (auto kind : {StrategyKind::kRing, StrategyKind::kHierarchicalRing,
                      StrategyKind::kHalvingDoubling, StrategyKind::kTorus2d})
      for (int n : {8, 32}) {
        core::Plan plan = testing::collective_plan(pcie_box(4, 16e9, sockets), kind, n, 2.5e7);
        core::RunResult ana = predict_analytic(plan);
        double sim = simulate(plan).step_time_s;
        bool warned = sockets && kind != StrategyKind::kRing;
        EXPECT_EQ(ana.warnings.size(), warned ? 1u : 0u) << core::strategy_name(kind);
        EXPECT_LT(rel(ana.step_time_s, sim), warned ? 0.03 : kTolerance)
            << core::strategy_name(kind) << " n=" << n << " sockets=" << sockets << ": sim " << sim
            << " analytic " << ana.step_time_s;
      }
}

// nvswitch is today's star under another name: the same results as nvlink.
TEST(IntraNode, NvswitchRoutesAsNvlink) {
  core::Cluster nv = testing::switch_cluster(8, 12.5e9, 2e-6, 300e9, 1e-6);
  core::Cluster sw = nv;
  sw.intra_fabric.kind = core::IntraNodeKind::kNvswitch;
  core::Plan a = testing::collective_plan(nv, StrategyKind::kHierarchicalRing, 16, 2.5e7);
  core::Plan b = testing::collective_plan(sw, StrategyKind::kHierarchicalRing, 16, 2.5e7);
  EXPECT_DOUBLE_EQ(simulate(a).step_time_s, simulate(b).step_time_s);
  EXPECT_DOUBLE_EQ(predict_analytic(a).step_time_s, predict_analytic(b).step_time_s);
}

}  // namespace
}  // namespace scaleout::sim
