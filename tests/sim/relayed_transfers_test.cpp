// A rank with many transfers in flight (a parameter server) hands those beyond the first few to
// relay actors, which start them at the same simulated time: the answer must not change. With
// SimShortcuts::direct_transfers = 1 every transfer but a rank's first goes through a relay.
#include <gtest/gtest.h>

#include <string>

#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

// `direct`: transfers a rank posts itself (0: the engine's default).
core::RunResult simulate_with_direct(const core::Plan& plan, int direct) {
  SimOptions options;
  options.shortcuts.direct_transfers = direct;
  return simulate(plan, options);
}

void expect_same_answer(const core::Plan& plan, const std::string& what) {
  core::RunResult direct = simulate_with_direct(plan, 0);
  core::RunResult relayed = simulate_with_direct(plan, 1);
  EXPECT_GT(direct.step_time_s, 0) << what;
  EXPECT_NEAR(relayed.step_time_s, direct.step_time_s, 1e-12 * direct.step_time_s) << what;
  ASSERT_EQ(relayed.links.size(), direct.links.size()) << what;
  for (std::size_t i = 0; i < direct.links.size(); ++i) {
    EXPECT_EQ(relayed.links[i].name, direct.links[i].name) << what;
    EXPECT_DOUBLE_EQ(relayed.links[i].bytes, direct.links[i].bytes) << what;
  }
}

core::Plan ps_plan(int devices_per_node, int workers, int servers) {
  core::Cluster c = testing::switch_cluster(devices_per_node, 12.5e9, 2e-6);
  core::Plan p = testing::collective_plan(c, core::StrategyKind::kPs, workers, 2.5e6);
  p.strategy.ps_servers = servers;
  return p;
}

TEST(RelayedTransfers, SynchronousPsKeepsItsAnswer) {
  expect_same_answer(ps_plan(1, 24, 1), "1 server");
  expect_same_answer(ps_plan(4, 32, 4), "4 servers, 4 devices per node");
}

TEST(RelayedTransfers, ColocatedServersWithHostCostsAndOverlap) {
  core::Plan p = ps_plan(4, 16, 4);
  p.strategy.ps_placement = core::PsPlacement::kColocated;
  p.cluster.host.message_overhead = 2e-5;
  p.cluster.host.copy_rate = 5e9;
  p.cluster.host.sum_rate = 8e9;  // each received shard's sum waits for its transfer
  p.training.overlap = true;
  p.workload.flops_per_sample = 2e10;
  expect_same_answer(p, "colocated, host costs, overlap");
}

TEST(RelayedTransfers, LocalAggregationAndRails) {
  core::Plan p = ps_plan(4, 32, 2);
  p.strategy.ps_local_aggregation = core::PsAggregation::kNode;
  expect_same_answer(p, "local aggregation");
  core::Plan rails = ps_plan(2, 16, 2);
  rails.cluster.nics_per_node = 2;
  expect_same_answer(rails, "two rails");
}

TEST(RelayedTransfers, CollectivesKeepTheirAnswer) {
  core::Cluster c = testing::switch_cluster(4, 12.5e9, 2e-6);
  for (auto kind :
       {core::StrategyKind::kRing, core::StrategyKind::kTree, core::StrategyKind::kHalvingDoubling})
    expect_same_answer(testing::collective_plan(c, kind, 16, 2.5e6), core::strategy_name(kind));
}

}  // namespace
}  // namespace scaleout::sim
