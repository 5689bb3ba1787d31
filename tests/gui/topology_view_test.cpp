// The topology view, headless: its items are the cluster's, links take the colour of a simulated
// run's utilization with the busiest drawn thick, and 1024 nodes stay a bounded drawing.
#include "gui/topology_view.hpp"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QPen>
#include <filesystem>
#include <map>

#include "gui/main_window.hpp"
#include "sim/simulator.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;

core::Cluster two_tier(int devices, int hosts_per_rack) {
  core::Cluster c = testing::switch_cluster(devices, 12.5e9, 2e-6);
  c.network.kind = core::NetworkKind::kTwoTier;
  c.network.hosts_per_rack = hosts_per_rack;
  c.network.uplink = {12.5e9, 2e-6};
  return c;
}

void save_shot(TopologyView& view, const std::string& name) {
  fs::create_directories(kShots);
  QImage image = view.image(QSize(1100, 700));
  ASSERT_TRUE(image.save(QString::fromStdString((kShots / name).string()), "PNG"));
  EXPECT_GT(fs::file_size(kShots / name), 10000u);
}

TEST(GuiTopology, LinksAreColouredByTheSimulatedUtilization) {
  // 2 racks of 2 two-device nodes; 6 workers and a parameter server on the last node: its NIC
  // carries every worker's gradient, the others one or two workers'.
  core::Plan plan = testing::collective_plan(two_tier(2, 2), core::StrategyKind::kPs, 6, 1e7);
  core::RunResult r = sim::simulate(plan);
  auto topo = core::Topology::build(plan.cluster, core::devices_needed(plan));
  std::map<std::string, core::LinkLoad> load;
  std::string busiest;
  for (const auto& l : r.links) {
    load[l.name] = l;
    bool drawn = l.name.find("-dev") == std::string::npos;  // device links are inside the boxes
    if (drawn && (busiest.empty() || l.utilization > load[busiest].utilization)) busiest = l.name;
  }
  ASSERT_FALSE(busiest.empty());

  TopologyView view;
  view.show_topology(topo, r.links, "ps, 6 workers and 1 server");
  const auto& drawn = view.drawn();
  ASSERT_EQ(view.link_items().size(), 4 + 2) << "4 NICs and 2 uplinks";
  int thick = 0;
  for (int i = 0; i < view.link_items().size(); ++i) {
    const LayoutLink& l = drawn.links[i];
    QPen pen = view.link_items()[i]->pen();
    auto it = load.find(l.name);
    ASSERT_NE(it, load.end()) << l.name << " carried the ring's traffic";
    Rgb want = utilization_color(it->second.utilization, true);
    EXPECT_EQ(pen.color(), QColor(want.r, want.g, want.b)) << l.name;
    EXPECT_TRUE(view.link_items()[i]->toolTip().contains(QString::fromStdString(l.name)));
    EXPECT_TRUE(view.link_items()[i]->toolTip().contains("utilization"));
    if (pen.widthF() > 3) {
      ++thick;
      EXPECT_DOUBLE_EQ(it->second.utilization, load[busiest].utilization) << l.name;
    }
  }
  EXPECT_GE(thick, 1);
  save_shot(view, "topology-two-tier.png");
}

TEST(GuiTopology, ThousandNodesStayABoundedDrawing) {
  auto topo = core::Topology::build(two_tier(8, 16), 1024 * 8);
  TopologyView view;
  view.show_topology(topo, {}, "1024 nodes in 64 racks");
  EXPECT_TRUE(view.drawn().aggregated);
  EXPECT_LT(view.scene()->items().size(), 400) << "boxes, labels and lines, not 8192 devices";
  save_shot(view, "topology-1024.png");
}

TEST(GuiTopology, WindowDrawsThePlansClusterAtTheChosenSize) {
  MainWindow w(quickstart());
  w.breakdown_size()->setCurrentText("64");
  TopologyView* view = w.show_topology();
  ASSERT_NE(view, nullptr);
  int nodes = 0, switches = 0;
  for (const auto& b : view->drawn().boxes) {
    nodes += b.kind == LayoutBox::Kind::kNode;
    switches += b.kind == LayoutBox::Kind::kSwitch;
  }
  EXPECT_EQ(nodes, 64 / quickstart().cluster.devices_per_node);
  EXPECT_EQ(switches, 1);
  for (auto* item : view->link_items()) EXPECT_EQ(item->pen().color(), QColor(150, 150, 150));
  save_shot(*view, "topology-quickstart.png");
}

}  // namespace
}  // namespace scaleout::gui
