// Rails bundled into one NIC of their summed rate at scale: the same step as the striped rails
// (max-min sharing gives each rail the same share of every transfer), only where that holds.
#include "sim/rail_bundle.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "core/plan_loader.hpp"
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
  core::Plan bundled = with_rails_bundled(plan);
  EXPECT_EQ(bundled.cluster.nics_per_node, 1);
  EXPECT_DOUBLE_EQ(bundled.cluster.nic.bandwidth, 8 * plan.cluster.nic.bandwidth);
}

}  // namespace
}  // namespace scaleout::sim
