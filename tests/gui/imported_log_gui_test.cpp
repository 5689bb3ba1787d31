// A training log imported as a measured run (`scaleout import-log megatron`) laid over the window's
// curves of the plan it ran: its tokens/s as a large dot at its size, with the prediction and the
// error in the results table, as a user would open it after a run.
#include <gtest/gtest.h>

#include <QTest>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analytic/analytic.hpp"
#include "core/plan/plan_loader.hpp"
#include "gui/main_window.hpp"
#include "gui/results_dock.hpp"
#include "gui/results_table.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

TEST(GuiImportedLog, AMegatronLogOverlaysTheGpt3Curves) {
  const std::string plan = testing::source_path("experiments/model-parallel/gpt3-175b.yaml");
  const std::string log = testing::source_path("tests/data/megatron/gpt3-175b-train.log");
  std::filesystem::create_directories(kShots);
  std::filesystem::path measured = kShots / "gpt3-megatron-measured.json";
  testing::Output imported =
      cli("import-log megatron " + log + " --plan " + plan + " -o " + measured.string());
  ASSERT_EQ(imported.code, 0) << imported.text;
  auto run = nlohmann::json::parse(std::ifstream(measured));

  MainWindow w(core::load_plan(plan));
  QString said = w.open_result(QString::fromStdString(measured.string()));
  ASSERT_TRUE(said.startsWith("measured run from")) << said.toStdString();
  ASSERT_EQ(w.measured().size(), 1u);
  // The dot: the log's sequences/s as tokens/s (2,048 a sequence) at its 1,024 GPUs.
  const LineChartData& tokens = w.throughput_chart()->data();
  ASSERT_EQ(tokens.measured.size(), 1);
  ASSERT_EQ(tokens.measured[0].points.size(), 1);
  EXPECT_EQ(tokens.measured[0].points[0].x(), 1024);
  EXPECT_DOUBLE_EQ(tokens.measured[0].points[0].y(),
                   run["throughput_samples_per_s"].get<double>() * 2048);
  // Its prediction is the closed form's for the plan at that size, and the error between them.
  const MeasuredPoint& m = w.measured().front();
  core::Plan at = core::load_plan(plan);
  at.training.workers = 1024;
  double predicted = sim::predict_analytic(at).throughput_samples_per_s;
  EXPECT_DOUBLE_EQ(m.predicted.throughput_samples_per_s, predicted);
  EXPECT_NEAR(m.throughput_error, predicted / run["throughput_samples_per_s"].get<double>() - 1,
              1e-12);
  // The results table speaks in tokens too; its values and CSV names stay in samples/s.
  const ResultsTableModel* table = w.results()->model();
  EXPECT_EQ(table->headerData(ResultsTableModel::kMeasuredThroughput, Qt::Horizontal).toString(),
            "Measured tokens/s");
  EXPECT_EQ(table->data(table->index(0, ResultsTableModel::kMeasuredThroughput)).toString(),
            QString::number(run["throughput_samples_per_s"].get<double>() * 2048, 'f', 0));
  QModelIndex measured_cell = table->index(0, ResultsTableModel::kMeasuredThroughput);
  double exact = table->data(measured_cell, ResultsTableModel::kValueRole).toDouble();
  EXPECT_DOUBLE_EQ(exact, run["throughput_samples_per_s"].get<double>());
  w.resize(1500, 950);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QTest::qWait(100);
  EXPECT_TRUE(cut_labels(w).isEmpty()) << cut_labels(w).join("\n").toStdString();
  ASSERT_TRUE(w.grab().save(QString::fromStdString((kShots / "window-imported-log.png").string())));
}

}  // namespace
}  // namespace scaleout::gui
