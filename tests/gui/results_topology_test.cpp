// The cluster view coloured from an opened result file, headless: the links take the colours of
// the file's `links` (the newest file, or the selected row's), or the status bar says why not.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QGraphicsPathItem>
#include <QItemSelectionModel>
#include <QPen>
#include <QStatusBar>
#include <QTableView>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "gui/main_window.hpp"
#include "gui/results_dock.hpp"
#include "gui/topology_view.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/gui/results_support.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;

QString qpath(const fs::path& p) { return QString::fromStdString(p.string()); }

// A simulated run's result with each drawn link's utilization set by the test: 0.1 for the first
// node's NIC, 0.9 for the others (`flip` swaps them), so the colours can only come from this file.
std::map<std::string, double> write_links_result(const fs::path& dir, const std::string& name,
                                                 bool flip) {
  write_result(dir, name, "ring", 16, 1.0, "sim");
  auto j = nlohmann::json::parse(std::ifstream(dir / name));
  std::map<std::string, double> utilization;
  for (auto& l : j["links"]) {
    bool first = l["name"].get<std::string>().rfind("node0", 0) == 0;
    l["utilization"] = first != flip ? 0.1 : 0.9;
    utilization[l["name"].get<std::string>()] = l["utilization"].get<double>();
  }
  std::ofstream(dir / name) << j.dump(2);
  return utilization;
}

// Every drawn link named in `utilization` has its colour; returns how many were checked.
int expect_colours(TopologyView& view, const std::map<std::string, double>& utilization) {
  int checked = 0;
  for (int i = 0; i < view.link_items().size(); ++i) {
    const std::string& name = view.drawn().links[i].name;
    auto it = utilization.find(name);
    if (it == utilization.end()) continue;
    Rgb want = utilization_color(it->second, true);
    EXPECT_EQ(view.link_items()[i]->pen().color(), QColor(want.r, want.g, want.b)) << name;
    ++checked;
  }
  return checked;
}

TEST(GuiResults, TopologyColoursFollowTheOpenedResultsLinks) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-results-links";
  fs::remove_all(dir);
  auto first = write_links_result(dir, "first.json", false);
  auto second = write_links_result(dir, "second.json", true);
  MainWindow w(quickstart());
  w.open_results({qpath(dir / "first.json"), qpath(dir / "second.json")});
  ASSERT_EQ(w.measured().size(), 2u);

  w.breakdown_size()->setCurrentText("16");
  TopologyView* view = w.show_topology();
  EXPECT_EQ(expect_colours(*view, second), 2) << "the newest file, both nodes' NICs";
  fs::create_directories(kShots);
  ASSERT_TRUE(view->image(QSize(1100, 700)).save(qpath(kShots / "topology-from-result.png")));

  QTableView* table = w.results()->view();  // a selected result comes first
  table->selectionModel()->select(table->model()->index(0, 0),
                                  QItemSelectionModel::Select | QItemSelectionModel::Rows);
  w.show_topology();
  EXPECT_EQ(expect_colours(*view, first), 2);

  // At 32 workers neither file fits: grey links, and the status bar says why.
  w.breakdown_size()->setCurrentText("32");
  w.show_topology();
  EXPECT_TRUE(w.statusBar()->currentMessage().contains(
      "first.json does not colour the cluster view: it ran 16 workers, the view shows 32"))
      << w.statusBar()->currentMessage().toStdString();
  for (auto* item : view->link_items()) EXPECT_EQ(item->pen().color(), QColor(150, 150, 150));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scaleout::gui
