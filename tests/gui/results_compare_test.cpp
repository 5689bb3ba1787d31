// Two results side by side, headless: the deltas are the differences of the numbers in the two
// files, read here with nlohmann::json.
#include <gtest/gtest.h>

#include <QItemSelectionModel>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gui/compare_dialog.hpp"
#include "gui/main_window.hpp"
#include "gui/results_dock.hpp"
#include "gui/results_table.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/gui/results_support.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;

QString qpath(const fs::path& p) { return QString::fromStdString(p.string()); }

void select_rows(ResultsDock& dock, std::initializer_list<int> rows) {
  QTableView* view = dock.view();
  view->clearSelection();
  for (int r : rows)
    view->selectionModel()->select(view->model()->index(r, 0),
                                   QItemSelectionModel::Select | QItemSelectionModel::Rows);
}

TEST(GuiResults, SideBySideDeltasAreTheFilesDifferences) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-results-compare";
  fs::remove_all(dir);
  write_result(dir, "a.json", "ring", 16, 1.25);
  write_result(dir, "b.json", "torus2d", 64, 0.9);
  MainWindow w(quickstart());
  w.open_results({qpath(dir / "a.json"), qpath(dir / "b.json")});
  ASSERT_EQ(w.measured().size(), 2u);

  select_rows(*w.results(), {0});
  EXPECT_EQ(w.results()->compare_selected(), nullptr);
  EXPECT_TRUE(w.statusBar()->currentMessage().startsWith("select two results"));

  select_rows(*w.results(), {0, 1});
  CompareDialog* dialog = w.results()->compare_selected();
  ASSERT_NE(dialog, nullptr);
  auto a = nlohmann::json::parse(std::ifstream(dir / "a.json"));
  auto b = nlohmann::json::parse(std::ifstream(dir / "b.json"));
  const std::pair<const char*, nlohmann::json::json_pointer> keys[] = {
      {"step_time_s", nlohmann::json::json_pointer("/step_time_s")},
      {"throughput_samples_per_s", nlohmann::json::json_pointer("/throughput_samples_per_s")},
      {"scaling_efficiency", nlohmann::json::json_pointer("/scaling_efficiency")},
      {"phases.comm_s", nlohmann::json::json_pointer("/phases/comm_s")},
      {"phases.exposed_comm_s", nlohmann::json::json_pointer("/phases/exposed_comm_s")},
      {"bytes", nlohmann::json::json_pointer("/bytes")}};
  ASSERT_EQ(dialog->rows().size(), std::size(keys));
  QTableWidget* table = dialog->table();
  for (std::size_t i = 0; i < std::size(keys); ++i) {
    const auto& [name, pointer] = keys[i];
    double av = a[pointer].get<double>(), bv = b[pointer].get<double>();
    const SideBySideRow& row = dialog->rows()[i];
    EXPECT_EQ(row.name, name);
    EXPECT_DOUBLE_EQ(row.a, av) << name;
    EXPECT_DOUBLE_EQ(row.b, bv) << name;
    EXPECT_DOUBLE_EQ(row.difference, bv - av) << name;
    EXPECT_DOUBLE_EQ(row.ratio, bv / av) << name;
    int r = static_cast<int>(i);
    EXPECT_DOUBLE_EQ(table->item(r, 2)->data(Qt::UserRole).toDouble(), bv - av) << name;
    EXPECT_DOUBLE_EQ(table->item(r, 3)->data(Qt::UserRole).toDouble(), bv / av) << name;
  }
  EXPECT_NE(a["step_time_s"], b["step_time_s"]) << "the two runs differ: the deltas mean something";

  fs::create_directories(kShots);
  dialog->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(dialog));
  ASSERT_TRUE(dialog->grab().save(qpath(kShots / "results-compare.png")));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scaleout::gui
