#include "core/plan/topology.hpp"

#include <gtest/gtest.h>

#include "core/plan/input_error.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

using testing::switch_cluster;

TEST(Topology, SwitchFillsNodesAndRoutesThroughNics) {
  Cluster c = switch_cluster(8, 12.5e9, 2e-6);
  Topology t = Topology::build(c, 20);
  EXPECT_EQ(t.num_nodes(), 3);
  EXPECT_EQ(t.num_devices(), 24);
  EXPECT_TRUE(t.connected());
  EXPECT_EQ(t.node_of_device(7), 0);
  EXPECT_EQ(t.node_of_device(8), 1);
  Path same = t.device_path(0, 1);
  EXPECT_EQ(same.hops.size(), 2u);  // device link up, device link down
  EXPECT_DOUBLE_EQ(same.bandwidth, 150e9);
  Path across = t.device_path(0, 9);
  EXPECT_EQ(across.hops.size(), 4u);  // device, nic, nic, device
  EXPECT_DOUBLE_EQ(across.bandwidth, 12.5e9);
  EXPECT_NEAR(across.latency, 1e-6 + 2e-6 + 2e-6 + 1e-6, 1e-15);
  EXPECT_EQ(t.links()[across.hops[1].link].name, "node0-nic");
  EXPECT_TRUE(across.hops[1].forward);
  EXPECT_FALSE(across.hops[2].forward);
  auto cost = t.device_cost(0, 9);
  EXPECT_DOUBLE_EQ(cost.latency, across.latency);
  EXPECT_DOUBLE_EQ(cost.bandwidth, across.bandwidth);
}

TEST(Topology, TwoTierCrossesTheUplinksBetweenRacks) {
  Cluster c = switch_cluster(1, 12.5e9, 1e-6);
  c.network.kind = NetworkKind::kTwoTier;
  c.network.hosts_per_rack = 4;
  c.network.uplink = {5e9, 1e-6};
  Topology t = Topology::build(c, 8);
  Path in_rack = t.device_path(0, 3);
  Path across = t.device_path(0, 4);
  EXPECT_EQ(in_rack.hops.size(), 4u);
  EXPECT_EQ(across.hops.size(), 6u);
  EXPECT_DOUBLE_EQ(across.bandwidth, 5e9);
  bool uses_uplink = false;
  for (const auto& h : across.hops) uses_uplink |= t.links()[h.link].name == "rack0-uplink";
  EXPECT_TRUE(uses_uplink);
}

TEST(Topology, FatTreeAndTorusAreConnectedWithExpectedSizes) {
  Cluster f = switch_cluster(2, 12.5e9, 1e-6);
  f.network.kind = NetworkKind::kFatTree;
  f.network.fat_tree_k = 4;
  Topology ft = Topology::build(f, 32);
  EXPECT_EQ(ft.num_nodes(), 16);                // k^3/4 hosts
  EXPECT_EQ(ft.switch_vertices().size(), 20u);  // 5k^2/4 switches
  EXPECT_TRUE(ft.connected());
  EXPECT_EQ(ft.device_path(0, 31).hops.size(),
            8u);  // device, nic, edge-agg, agg-core, core-agg, agg-edge, nic, device

  Cluster tc = switch_cluster(1, 12.5e9, 1e-6);
  tc.network.kind = NetworkKind::kTorus2d;
  tc.network.dims = {4, 4};
  Topology torus = Topology::build(tc, 16);
  EXPECT_EQ(torus.num_nodes(), 16);
  EXPECT_TRUE(torus.connected());
  // Opposite corners of a 4x4 torus are 2+2 hops apart thanks to wrap-around... (0,0)->(2,2) is 4.
  EXPECT_EQ(torus.device_path(0, 10).hops.size(), 4u + 2u);
  EXPECT_EQ(torus.device_path(0, 15).hops.size(), 2u + 2u);  // (0,0)->(3,3): one wrap each way
}

TEST(Topology, ExplicitFormRejectsUnknownEndpointsAndDisconnection) {
  Cluster c = switch_cluster(1, 1e9, 0);
  c.network.kind = NetworkKind::kExplicit;
  c.hosts = {{"a", 1}, {"b", 2}};
  c.switches = {"s"};
  c.links = {{"a", "s", {1e9, 1e-6}, 3}, {"b", "s", {2e9, 1e-6}, 4}};
  Topology t = Topology::build(c, 3);
  EXPECT_EQ(t.num_devices(), 3);
  EXPECT_DOUBLE_EQ(t.device_path(0, 2).bandwidth, 1e9);

  c.links.pop_back();
  EXPECT_THROW(Topology::build(c, 3), InputError);
  c.links.push_back({"b", "nowhere", {1e9, 0}, 7});
  try {
    Topology::build(c, 3);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nowhere"), std::string::npos);
    EXPECT_EQ(e.line(), 7);
  }
}

TEST(Placement, DedicatedServersTakeNodesAfterTheWorkers) {
  Plan p = testing::collective_plan(switch_cluster(4, 1e9, 1e-6), StrategyKind::kPs, 6, 1000);
  p.strategy.ps_servers = 2;
  EXPECT_EQ(devices_needed(p), 8 + 2 * 4);
  Topology t = Topology::build(p.cluster, devices_needed(p));
  Placement pl = place_ranks(p, t);
  ASSERT_EQ(pl.server_device.size(), 2u);
  EXPECT_EQ(t.node_of_device(pl.server_device[0]), 2);
  EXPECT_EQ(t.node_of_device(pl.server_device[1]), 3);
  p.strategy.ps_placement = PsPlacement::kColocated;
  Placement co = place_ranks(p, Topology::build(p.cluster, devices_needed(p)));
  EXPECT_EQ(co.server_device, (std::vector<int>{0, 3}));
}

TEST(Topology, TreeRoutingEqualsBreadthFirstSearch) {
  Cluster c = testing::switch_cluster(2, 12.5e9, 1e-6);
  for (auto kind : {NetworkKind::kSwitch, NetworkKind::kTwoTier}) {
    c.network.kind = kind;
    c.network.hosts_per_rack = 3;
    c.network.uplink = {5e9, 3e-6};
    Topology t = Topology::build(c, 20);
    for (int a = 0; a < t.num_nodes(); ++a)
      for (int b = 0; b < t.num_nodes(); ++b) {
        Path searched = t.searched_node_path(a, b);
        Path routed = t.device_path(t.first_device(a), t.first_device(b));
        ASSERT_EQ(routed.hops.size(), a == b ? 0u : searched.hops.size() + 2) << a << "->" << b;
        for (std::size_t i = 0; a != b && i < searched.hops.size(); ++i) {
          EXPECT_EQ(routed.hops[i + 1].link, searched.hops[i].link);
          EXPECT_EQ(routed.hops[i + 1].forward, searched.hops[i].forward);
        }
      }
  }
}

TEST(Topology, HeterogeneitySlowsNamedDevicesAndLinks) {
  Cluster c = testing::switch_cluster(2, 12.5e9, 1e-6);
  c.heterogeneity.speed_factors = {{"node1", 0.5}, {"node0-dev1", 0.8}};
  c.heterogeneity.link_bandwidth = {{"node2-nic", 1e9}};
  Topology t = Topology::build(c, 6);
  EXPECT_DOUBLE_EQ(t.device_flops(0), 100e12);
  EXPECT_DOUBLE_EQ(t.device_flops(1), 80e12);
  EXPECT_DOUBLE_EQ(t.device_flops(3), 50e12);
  EXPECT_DOUBLE_EQ(t.slowest_device_flops(1), 100e12);
  EXPECT_DOUBLE_EQ(t.slowest_device_flops(2), 80e12);
  EXPECT_DOUBLE_EQ(t.slowest_device_flops(6), 50e12);
  EXPECT_DOUBLE_EQ(t.device_cost(0, 4).bandwidth, 1e9);
  c.heterogeneity.link_bandwidth = {{"nowhere", 1e9}};
  EXPECT_THROW(Topology::build(c, 6), InputError);
}

}  // namespace
}  // namespace scaleout::core
