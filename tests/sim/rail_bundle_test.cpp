// Rails bundled into one NIC of their summed rate at scale: the same step as the striped rails
// (max-min sharing gives each rail the same share of every transfer), only where that holds.
#include "sim/rail_bundle.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "core/plan/plan_loader.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

// Narayanan et al.'s 3.6B GPT on 64 A100s, 8 NICs a DGX node, with checkpoints to storage slow
// enough (40 GB/s) that the nodes' 8 NICs are not what limits them.
core::Plan dgx_plan() {
  core::Plan plan = core::load_plan(testing::source_path("experiments/megatron21/gpt-3.6b.yaml"));
  plan = testing::with_node_failures(plan, 30 * 86400.0, 1e6, 100, 0, 300);
  plan.resilience.checkpoint_cost_given = false;
  plan.cluster.storage.write_bandwidth = 40e9;
  plan.cluster.storage.read_bandwidth = 40e9;
  return plan;
}

core::RunResult simulated(const core::Plan& plan, long long bundle_from) {
  SimOptions options;
  options.shortcuts.bundle_rails_from = bundle_from;
  return simulate(plan, options);
}

bool warns_of_bundling(const core::RunResult& r) {
  for (const std::string& w : r.warnings)
    if (w.find("NICs were simulated as one link") != std::string::npos) return true;
  return false;
}

TEST(RailBundle, TheStepAndTheCheckpointAreTheStripedRails) {
  core::Plan plan = dgx_plan();
  ASSERT_EQ(plan.cluster.nics_per_node, 8);
  core::RunResult striped = simulated(plan, LLONG_MAX);
  core::RunResult bundled = simulated(plan, 0);
  EXPECT_FALSE(warns_of_bundling(striped));
  EXPECT_TRUE(warns_of_bundling(bundled));
  EXPECT_NEAR(bundled.step_time_s / striped.step_time_s, 1, 1e-4);
  ASSERT_TRUE(striped.reliability && bundled.reliability);
  EXPECT_NEAR(bundled.reliability->checkpoint_write_s / striped.reliability->checkpoint_write_s, 1,
              1e-6);
  EXPECT_NEAR(bundled.reliability->checkpoint_read_s / striped.reliability->checkpoint_read_s, 1,
              1e-6);
}

// A lone writer: worker 0 of a data-parallel plan writes its 8 GB checkpoint over its node's 8
// NICs of 50 GB/s to fast storage. The route's latency (1 + 3 + 3 us) bounds a flow by SimGrid's
// TCP window to 4 MiB / 14 us = 300 GB/s: each of the 8 stripes is under it, the bundled flow
// would not be unless the window grows with the rails.
TEST(RailBundle, ALoneTransferKeepsTheRailsWindows) {
  core::Cluster c = testing::switch_cluster(8, 50e9, 3e-6, 450e9, 1e-6);
  c.nics_per_node = 8;
  c.storage.write_bandwidth = c.storage.read_bandwidth = 10e12;
  core::Plan plan = testing::collective_plan(c, core::StrategyKind::kRing, 16, 1e9);
  plan = testing::with_node_failures(plan, 30 * 86400.0, 1e6, 100, 0, 300);
  plan.resilience.checkpoint_cost_given = false;
  core::RunResult striped = simulated(plan, LLONG_MAX);
  core::RunResult bundled = simulated(plan, 0);
  ASSERT_TRUE(warns_of_bundling(bundled));
  ASSERT_TRUE(striped.reliability && bundled.reliability);
  // 8e9 bytes at the 8 NICs' 400 GB/s, not at one window's 300 GB/s.
  EXPECT_NEAR(striped.reliability->checkpoint_write_s, 8e9 / 400e9, 1e-4);
  EXPECT_NEAR(bundled.reliability->checkpoint_write_s / striped.reliability->checkpoint_write_s, 1,
              1e-6);
  EXPECT_NEAR(bundled.step_time_s / striped.step_time_s, 1, 1e-6);
}

TEST(RailBundle, OnlyAtScaleOnOneSwitchUnderMaxMinSharing) {
  core::Plan plan = dgx_plan();
  EXPECT_FALSE(bundles_rails(plan));  // 64 ranks x 7 stand-ins: below the default
  EXPECT_TRUE(bundles_rails(plan, 64 * 7));
  EXPECT_FALSE(bundles_rails(plan, 64 * 7 + 1));
  core::Plan ib = plan;
  ib.cluster.network_model = "ib";  // its penalties count the flows of each host
  EXPECT_FALSE(bundles_rails(ib, 0));
  core::Plan one_nic = plan;
  one_nic.cluster.nics_per_node = 1;
  EXPECT_FALSE(bundles_rails(one_nic, 0));
  core::Plan pcie = plan;
  pcie.cluster.intra_fabric.kind = core::IntraNodeKind::kPcieTree;
  EXPECT_FALSE(bundles_rails(pcie, 0));
  // SimGrid's default window (4 MiB) over 2 x 1 us of device links: 1 TB/s, above 300 GB/s;
  // over 2 x 10 us, 105 GB/s: it would bind inside the nodes, where nothing is striped.
  EXPECT_TRUE(window_spares_node_links(plan, 4194304));
  plan.cluster.intra_node.latency = 10e-6;
  EXPECT_FALSE(window_spares_node_links(plan, 4194304));
  core::Plan bundled = with_rails_bundled(plan);
  EXPECT_EQ(bundled.cluster.nics_per_node, 1);
  EXPECT_DOUBLE_EQ(bundled.cluster.nic.bandwidth, 8 * plan.cluster.nic.bandwidth);
}

}  // namespace
}  // namespace scaleout::sim
