// One zone for the whole cluster (the default node fabric on one switch) must give the answers of
// a zone per node to the last bit: the same links, in the same order, latencies summed alike.
#include <gtest/gtest.h>

#include <string>

#include "core/plan/plan_loader.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

core::RunResult simulate_zones(const core::Plan& plan, bool zone_per_node) {
  SimOptions options;
  options.shortcuts.flat_zone = !zone_per_node;
  return simulate(plan, options);
}

void expect_same_answer(const core::Plan& plan, const std::string& what) {
  core::RunResult flat = simulate_zones(plan, false);
  core::RunResult nodes = simulate_zones(plan, true);
  EXPECT_GT(flat.step_time_s, 0) << what;
  EXPECT_EQ(flat.step_time_s, nodes.step_time_s) << what;
  ASSERT_EQ(flat.links.size(), nodes.links.size()) << what;
  for (std::size_t i = 0; i < flat.links.size(); ++i) {
    EXPECT_EQ(flat.links[i].name, nodes.links[i].name) << what;
    EXPECT_EQ(flat.links[i].bytes, nodes.links[i].bytes) << what;
    EXPECT_EQ(flat.links[i].utilization, nodes.links[i].utilization) << what;
  }
}

// Device and NIC latencies of different magnitudes, so that a different summing order shows.
core::Cluster cluster(const std::string& model) {
  core::Cluster c = testing::switch_cluster(4, 12.5e9, 1.7e-6, 150e9, 0.3e-6);
  c.network_model = model;
  return c;
}

TEST(FlatClusterZone, CollectivesUnderEveryNetworkModel) {
  for (const char* model : {"cm02", "lv08", "ib"})
    for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kTorus2d,
                      core::StrategyKind::kHierarchicalRing, core::StrategyKind::kTree})
      expect_same_answer(testing::collective_plan(cluster(model), kind, 16, 2.5e6),
                         std::string(model) + " " + core::strategy_name(kind));
}

TEST(FlatClusterZone, ParameterServersDedicatedAndColocated) {
  for (const char* model : {"cm02", "lv08"}) {
    core::Plan p = testing::collective_plan(cluster(model), core::StrategyKind::kPs, 16, 2.5e6);
    p.strategy.ps_servers = 2;
    expect_same_answer(p, std::string(model) + " dedicated PS");
    p.strategy.ps_placement =
        core::PsPlacement::kColocated;  // a worker and a server share a device
    expect_same_answer(p, std::string(model) + " colocated PS");
  }
}

// Two NICs a node on the one switch: transfers between nodes stripe over stand-in hosts of rail 1.
TEST(FlatClusterZone, CollectivesOverTwoRails) {
  for (const char* model : {"cm02", "lv08"}) {
    core::Cluster c = cluster(model);
    c.nics_per_node = 2;
    for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kHierarchicalRing})
      expect_same_answer(testing::collective_plan(c, kind, 16, 2.5e6),
                         std::string(model) + " two rails " + core::strategy_name(kind));
  }
}

// A model-parallel plan on eight rails (DGX A100 nodes): tensor groups inside the nodes, the data
// group's all-reduce across them.
TEST(FlatClusterZone, ModelParallelPlanOverEightRails) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/megatron21/gpt-3.6b.yaml"));
  ASSERT_EQ(plan.cluster.nics_per_node, 8);
  expect_same_answer(plan, "gpt-3.6b on DGX A100");
}

}  // namespace
}  // namespace scaleout::sim
