// The results table, headless: its cells are `scaleout compare`'s numbers, a folder of results
// lands on the chart and in the table with the non-results named in the status bar, and the CSV
// export reads back to the table's exact values.
#include "gui/results_table.hpp"

#include <gtest/gtest.h>

#include <QApplication>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gui/main_window.hpp"
#include "gui/results_csv.hpp"
#include "gui/results_dock.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/gui/results_support.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;
using Col = ResultsTableModel::Column;

QVariant cell(const QAbstractItemModel& model, int row, int column) {
  return model.data(model.index(row, column), ResultsTableModel::kValueRole);
}

// A folder of three results (one named with a comma, for the CSV's quoting) and one JSON that is
// not a result.
fs::path results_folder(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  write_result(dir, "a-ring-16.json", "ring", 16, 1.25);
  write_result(dir, "b-ps, 32.json", "ps", 32, 1.5);
  write_result(dir, "c-torus-64.json", "torus2d", 64, 0.9);
  std::ofstream(dir / "notes.json") << R"({"note": "not a result"})";
  std::ofstream(dir / "readme.txt") << "not even JSON, and not *.json";
  return dir;
}

TEST(GuiResults, TableCellsAreCompareOutput) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-results-table";
  fs::create_directories(dir);
  write_runs(dir / "predicted.json", dir / "measured.json");  // ring, 16 workers, 20% slower
  MainWindow w(quickstart());
  QString said = w.open_results({QString::fromStdString((dir / "measured.json").string())});
  EXPECT_EQ(said, "opened 1 result");
  const ResultsTableModel& t = *w.results()->model();
  ASSERT_EQ(t.rowCount(), 1);

  auto c = cli("compare " + (dir / "predicted.json").string() + " " +
               (dir / "measured.json").string() + " --json");
  ASSERT_EQ(c.code, 0) << c.text;
  auto j = nlohmann::json::parse(c.text);
  auto expect = [&](int column, const char* key, const char* field) {
    double want = j[key][field].get<double>();
    expect_relative(cell(t, 0, column).toDouble(), want, 1e-12, std::string(key) + " " + field);
  };
  expect(Col::kPredictedStep, "step_time_s", "predicted");
  expect(Col::kMeasuredStep, "step_time_s", "measured");
  expect(Col::kStepError, "step_time_s", "relative_error");
  expect(Col::kPredictedThroughput, "throughput_samples_per_s", "predicted");
  expect(Col::kMeasuredThroughput, "throughput_samples_per_s", "measured");
  expect(Col::kThroughputError, "throughput_samples_per_s", "relative_error");
  EXPECT_EQ(cell(t, 0, Col::kFile).toString(), "measured.json");
  EXPECT_EQ(cell(t, 0, Col::kStrategy).toString(), "ring");
  EXPECT_EQ(cell(t, 0, Col::kWorkers).toInt(), 16);
  EXPECT_EQ(cell(t, 0, Col::kEngine).toString(), "cpu");
  // predicted / (0.8 predicted) - 1, shown in percent
  EXPECT_EQ(t.data(t.index(0, Col::kThroughputError)).toString(), "+25.0 %");
  EXPECT_EQ(t.data(t.index(0, Col::kStepError)).toString(), "-20.0 %");
  fs::remove_all(dir);
}

TEST(GuiResults, FolderOfResultsLandsOnTheChartAndInTheTable) {
  fs::path dir = results_folder("scaleout-gui-results-folder");
  MainWindow w(quickstart());
  QString said = w.results()->open_folder(QString::fromStdString(dir.string()));
  EXPECT_EQ(w.statusBar()->currentMessage(), said);
  EXPECT_TRUE(said.contains("opened 3 results; skipped 1: notes.json (not a result JSON"))
      << said.toStdString();
  EXPECT_EQ(QApplication::activeModalWidget(), nullptr) << "no dialog per skipped file";
  ASSERT_EQ(w.measured().size(), 3u);
  EXPECT_EQ(w.results()->model()->rowCount(), 3);
  EXPECT_TRUE(w.results()->isVisibleTo(&w));

  // Each measured throughput is a dot on the chart at its size, and a row of the table.
  auto dots = series_of(w.throughput_chart(), false);
  for (const char* name : {"a-ring-16.json", "b-ps, 32.json", "c-torus-64.json"}) {
    auto j = nlohmann::json::parse(std::ifstream(dir / name));
    double tp = j["throughput_samples_per_s"].get<double>();
    int n = j["workers"].get<int>();
    bool on_chart = false;
    for (QXYSeries* s : dots)
      for (const QPointF& p : s->points()) on_chart |= p.x() == n && p.y() == tp;
    EXPECT_TRUE(on_chart) << name;
    bool in_table = false;
    const ResultsTableModel& t = *w.results()->model();
    for (int r = 0; r < t.rowCount(); ++r)
      in_table |= cell(t, r, Col::kFile).toString() == name &&
                  cell(t, r, Col::kMeasuredThroughput).toDouble() == tp &&
                  cell(t, r, Col::kWorkers).toInt() == n;
    EXPECT_TRUE(in_table) << name;
  }

  // Sorting by measured throughput, highest first, orders the view's rows by that value.
  QTableView* view = w.results()->view();
  view->sortByColumn(Col::kMeasuredThroughput, Qt::DescendingOrder);
  const QAbstractItemModel& sorted = *view->model();
  for (int r = 1; r < sorted.rowCount(); ++r)
    EXPECT_GE(cell(sorted, r - 1, Col::kMeasuredThroughput).toDouble(),
              cell(sorted, r, Col::kMeasuredThroughput).toDouble());

  EXPECT_TRUE(w.results()->open_folder("/nonexistent-folder").startsWith("no *.json files"));
  EXPECT_EQ(w.measured().size(), 3u);

  fs::create_directories(kShots);
  w.resize(1500, 1000);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  ASSERT_TRUE(w.grab().save(QString::fromStdString((kShots / "results-window.png").string())));
  ASSERT_TRUE(
      w.results()->grab().save(QString::fromStdString((kShots / "results-table.png").string())));
  fs::remove_all(dir);
}

// A CSV line split into fields, quotes undone (the reader of this test, not the code under test).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

TEST(GuiResults, CsvExportReadsBackToTheTable) {
  fs::path dir = results_folder("scaleout-gui-results-csv");
  MainWindow w(quickstart());
  w.results()->open_folder(QString::fromStdString(dir.string()));
  w.results()->view()->sortByColumn(Col::kWorkers, Qt::DescendingOrder);
  fs::path csv = dir / "out" / "table.csv";
  fs::create_directories(csv.parent_path());
  QString said = w.results()->export_csv(QString::fromStdString(csv.string()));
  EXPECT_EQ(said.toStdString(), "wrote 3 results to " + csv.string());

  std::ifstream in(csv);
  std::vector<std::vector<std::string>> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(csv_fields(line));
  ASSERT_EQ(lines.size(), 4u) << "header and 3 rows";
  EXPECT_EQ(lines[0],
            (std::vector<std::string>{"file", "strategy", "workers", "engine", "predicted_step_s",
                                      "predicted_throughput_samples_per_s", "measured_step_s",
                                      "measured_throughput_samples_per_s",
                                      "step_time_relative_error", "throughput_relative_error"}));
  const QAbstractItemModel& table = *w.results()->view()->model();  // the sorted view
  for (int r = 0; r < 3; ++r) {
    const auto& f = lines[r + 1];
    ASSERT_EQ(f.size(), 10u) << r;
    EXPECT_EQ(f[0], cell(table, r, Col::kFile).toString().toStdString());
    EXPECT_EQ(f[1], cell(table, r, Col::kStrategy).toString().toStdString());
    EXPECT_EQ(std::stoi(f[2]), cell(table, r, Col::kWorkers).toInt());
    EXPECT_EQ(f[3], "cpu");
    for (int c = Col::kPredictedStep; c <= Col::kThroughputError; ++c)
      EXPECT_EQ(std::stod(f[c]), cell(table, r, c).toDouble()) << "row " << r << " column " << c;
  }
  EXPECT_EQ(lines[1][2], "64") << "in the view's order: most workers first";
  EXPECT_EQ(lines[2][0], "b-ps, 32.json");

  // A failed export names the path.
  EXPECT_TRUE(w.results()->export_csv("/nonexistent-dir/table.csv").startsWith("could not write"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scaleout::gui
