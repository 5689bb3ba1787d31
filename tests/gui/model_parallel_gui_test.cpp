// A model-parallel plan in the window: its curves step by whole replicas and its step-time chart
// shows the pipeline bubble beside compute and exposed communication (a data-parallel plan's does
// not); the window is grabbed for a person to look at.
#include <gtest/gtest.h>

#include <QApplication>
#include <QTest>

#include "core/plan_loader.hpp"
#include "gui/chart_data.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "sim/curves.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

const std::string kGpt3 = testing::source_path("experiments/model-parallel/gpt3-175b.yaml");

TEST(GuiModelParallel, StepChartShowsThePipelineBubble) {
  core::Plan plan = core::load_plan(kGpt3);
  std::vector<int> sizes = sim::fitting_sizes(plan);
  EXPECT_EQ(sizes.front(), 128);  // one replica: tensor 8 x pipeline 16
  sim::Curves curves = sim::compute_curves(plan, sizes);
  BarChartData d = breakdown_data(curves, 512);
  ASSERT_EQ(d.stacks.size(), 3u);
  EXPECT_EQ(d.stacks[2].name, "pipeline bubble");
  const core::RunResult* ring = sim::find_point(curves, "ring", 512);
  ASSERT_NE(ring, nullptr);
  int i = static_cast<int>(d.categories.indexOf("ring"));
  ASSERT_GE(i, 0);
  EXPECT_NEAR(d.stacks[2].points[i].y(), ring->model_parallel->bubble_s * 1e3, 1e-6);
  // The three parts make up the step.
  double sum = 0;
  for (const auto& s : d.stacks) sum += s.points[i].y();
  EXPECT_NEAR(sum, ring->step_time_s * 1e3, 1e-6 * ring->step_time_s * 1e3);
  // A data-parallel plan has no bubble stack.
  EXPECT_EQ(breakdown_data(sim::compute_curves(quickstart(), {8, 64}), 64).stacks.size(), 2u);
}

TEST(GuiModelParallel, TheWindowOpensTheGpt3Plan) {
  MainWindow w(quickstart());
  EXPECT_TRUE(w.open_plan(QString::fromStdString(kGpt3)).startsWith("opened"));
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QApplication::processEvents();
  // The plan gives the global batch: the batch per worker follows from it, so it is not editable.
  QWidget* batch = w.plan_panel()->editor("training.batch_per_worker");
  ASSERT_NE(batch, nullptr);
  EXPECT_FALSE(batch->isEnabled());
  EXPECT_NE(batch->toolTip().toStdString().find("training.global_batch (1536)"), std::string::npos)
      << batch->toolTip().toStdString();
  std::filesystem::create_directories(kShots);
  ASSERT_TRUE(
      w.grab().save(QString::fromStdString((kShots / "window-model-parallel.png").string())));
}

}  // namespace
}  // namespace scaleout::gui
