// The topology view's layout, without Qt: every node, switch and link of the cluster is drawn (or
// counted in an aggregated box), links carry their load, and 1024 nodes stay a few hundred items.
#include "gui/topology_layout.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

using Kind = LayoutBox::Kind;

core::Cluster two_tier(int hosts_per_rack) {
  core::Cluster c = testing::switch_cluster(8, 12.5e9, 2e-6);
  c.network.kind = core::NetworkKind::kTwoTier;
  c.network.hosts_per_rack = hosts_per_rack;
  c.network.uplink = {50e9, 2e-6};
  return c;
}

int count(const TopologyLayout& l, Kind kind) {
  int n = 0;
  for (const auto& b : l.boxes) n += b.kind == kind;
  return n;
}

bool overlap(const LayoutBox& a, const LayoutBox& b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

TEST(TopologyLayout, TwoTierDrawsEveryNodeSwitchAndLink) {
  auto topo = core::Topology::build(two_tier(4), 16 * 8);
  TopologyLayout l = layout_topology(topo);
  EXPECT_FALSE(l.aggregated);
  EXPECT_EQ(count(l, Kind::kNode), 16);
  EXPECT_EQ(count(l, Kind::kSwitch), 5) << "core and 4 racks";
  EXPECT_EQ(l.links.size(), 16u + 4u) << "a NIC per node, an uplink per rack";
  for (const auto& b : l.boxes)
    if (b.kind == Kind::kNode) {
      EXPECT_EQ(b.devices, 8) << b.label;
    }
  std::map<std::string, const LayoutBox*> by_label;
  for (const auto& b : l.boxes) by_label[b.label] = &b;
  for (const auto& link : l.links) {
    ASSERT_EQ(link.members.size(), 1u);
    const auto& info = topo.links()[link.members[0]];
    EXPECT_EQ(link.name, info.name);
    std::set<std::string> ends{l.boxes[link.from].label, l.boxes[link.to].label};
    EXPECT_EQ(ends, (std::set<std::string>{topo.vertex(info.a).name, topo.vertex(info.b).name}));
  }
  EXPECT_LT(by_label["core"]->y, by_label["rack0"]->y) << "the core above the racks";
  EXPECT_LT(by_label["rack0"]->y, by_label["node0"]->y) << "racks above their nodes";
  for (std::size_t i = 0; i < l.boxes.size(); ++i)
    for (std::size_t j = i + 1; j < l.boxes.size(); ++j)
      EXPECT_FALSE(overlap(l.boxes[i], l.boxes[j])) << l.boxes[i].label << " " << l.boxes[j].label;
}

TEST(TopologyLayout, TorusIsAGridWithWrapAroundLinks) {
  core::Cluster c = testing::switch_cluster(1, 12.5e9, 2e-6);
  c.network.kind = core::NetworkKind::kTorus2d;
  c.network.dims = {4, 3};
  auto topo = core::Topology::build(c, 12);
  TopologyLayout l = layout_topology(topo);
  EXPECT_EQ(count(l, Kind::kNode), 12);
  EXPECT_EQ(count(l, Kind::kSwitch), 0);
  EXPECT_EQ(l.links.size(), 24u) << "east and south of every node";
  int wraps = 0;
  for (const auto& link : l.links) wraps += link.wraps;
  EXPECT_EQ(wraps, 3 + 4) << "one per row, one per column";
  EXPECT_EQ(l.boxes[1].y, l.boxes[0].y);
  EXPECT_GT(l.boxes[1].x, l.boxes[0].x);
  EXPECT_EQ(l.boxes[4].x, l.boxes[0].x) << "node4 starts the second row of 4";
  EXPECT_GT(l.boxes[4].y, l.boxes[0].y);
}

TEST(TopologyLayout, ThousandNodesAreDrawnAsRacks) {
  auto topo = core::Topology::build(two_tier(16), 1024 * 8);
  ASSERT_EQ(topo.num_nodes(), 1024);
  TopologyLayout l = layout_topology(topo);
  EXPECT_TRUE(l.aggregated);
  EXPECT_EQ(count(l, Kind::kNode), 0);
  EXPECT_EQ(count(l, Kind::kGroup), 64);
  EXPECT_EQ(count(l, Kind::kSwitch), 1) << "each rack switch is inside its rack's box";
  int nodes = 0;
  for (const auto& b : l.boxes)
    if (b.kind == Kind::kGroup) {
      EXPECT_EQ(b.nodes, 16) << b.label;
      EXPECT_EQ(b.devices, 16 * 8) << b.label;
      nodes += b.nodes;
    }
  EXPECT_EQ(nodes, 1024);
  EXPECT_EQ(l.links.size(), 64u) << "the uplinks";
  EXPECT_LT(l.boxes.size() + l.links.size(), 200u);
  EXPECT_LT(l.width, 3000) << "racks wrap into lines";
}

TEST(TopologyLayout, LinksCarryTheirLoadAndTheBusiestIsMarked) {
  auto topo = core::Topology::build(two_tier(2), 4 * 8);
  std::vector<core::LinkLoad> loads = {{"rack0-uplink", 4e9, 0.9},
                                       {"node1-nic", 2e9, 0.3},
                                       {"node2-nic", 1e9, 0.2},
                                       {"node0-dev0-link", 9e9, 0.95}};  // inside a node box
  TopologyLayout l = layout_topology(topo, loads);
  int loaded = 0, busiest = 0;
  for (const auto& link : l.links) {
    for (const auto& load : loads)
      if (load.name == link.name) {
        EXPECT_TRUE(link.loaded);
        EXPECT_EQ(link.bytes, load.bytes);
        EXPECT_EQ(link.utilization, load.utilization);
        EXPECT_NE(link.tip.find("utilization"), std::string::npos) << link.tip;
        ++loaded;
      }
    if (link.busiest) {
      EXPECT_EQ(link.name, "rack0-uplink");
      ++busiest;
    }
    if (link.name == "node3-nic") {
      EXPECT_FALSE(link.loaded);
    }
  }
  EXPECT_EQ(loaded, 3);
  EXPECT_EQ(busiest, 1);

  // Drawn as racks, the uplinks stay lines of their own, loads and all.
  TopologyLayout racks = layout_topology(topo, loads, 1);
  EXPECT_TRUE(racks.aggregated);
  ASSERT_EQ(count(racks, Kind::kGroup), 2);
  ASSERT_EQ(racks.links.size(), 2u);
  for (const auto& link : racks.links)
    EXPECT_EQ(link.busiest, link.name == "rack0-uplink") << link.name;
}

TEST(TopologyLayout, AnAggregatedLineAddsUpItsLinks) {
  core::Cluster c = testing::switch_cluster(1, 12.5e9, 2e-6);
  c.network.kind = core::NetworkKind::kTorus2d;
  c.network.dims = {8, 8};
  auto topo = core::Topology::build(c, 64);
  std::vector<core::LinkLoad> loads;
  for (std::size_t i = 0; i < topo.links().size(); ++i)
    loads.push_back({topo.links()[i].name, 1e6, static_cast<double>(i) / 1000});
  TopologyLayout l = layout_topology(topo, loads, 4);
  ASSERT_TRUE(l.aggregated);
  EXPECT_EQ(count(l, Kind::kGroup), 4);
  EXPECT_EQ(l.boxes[1].label, "node16..node31: 16 nodes") << "a run of consecutive nodes";
  std::size_t drawn = 0;
  for (const auto& link : l.links) {
    double busiest = 0;
    for (int m : link.members) busiest = std::max(busiest, static_cast<double>(m) / 1000);
    EXPECT_EQ(link.bytes, 1e6 * static_cast<double>(link.members.size()));
    EXPECT_EQ(link.bandwidth, 12.5e9 * static_cast<double>(link.members.size()));
    EXPECT_EQ(link.utilization, busiest);
    drawn += link.members.size();
  }
  EXPECT_GT(drawn, 0u);
  EXPECT_LT(drawn, topo.links().size()) << "links inside a group's box are not lines";
}

TEST(TopologyLayout, ColourGoesFromGreenToRedAsALinkFills) {
  Rgb idle = utilization_color(0, true), half = utilization_color(0.5, true),
      full = utilization_color(1, true), none = utilization_color(0.7, false);
  EXPECT_GT(idle.g, idle.r);
  EXPECT_GT(full.r, full.g);
  EXPECT_GE(half.r, idle.r);
  EXPECT_GE(full.r, half.r);
  EXPECT_LE(full.g, half.g);
  EXPECT_EQ(none.r, none.g) << "grey when the result has no load for it";
  EXPECT_EQ(none.g, none.b);
}

}  // namespace
}  // namespace scaleout::gui
