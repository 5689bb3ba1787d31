// A plan with failure rates charts its goodput against cluster size: the expected share and the
// P10 and P90 of sampled runs, falling as the cluster grows (more nodes fail more often), in the
// window and in --render-plan's page. Screenshots land in the build's gui-screenshots folder.
#include <gtest/gtest.h>

#include <QApplication>
#include <QTest>
#include <filesystem>

#include "gui/goodput_chart_data.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "gui/render.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

// The quickstart plan (ResNet-50 on V100 nodes) with a node failing every 5 days, a GPU every
// 50,000 hours, and a checkpoint every 20,000 steps (about 14 minutes) costing 5 s: failures, not
// checkpoints, take most of the lost time.
core::Plan failing_quickstart() {
  core::Plan plan = testing::with_node_failures(quickstart(), 5 * 86400.0, 450000, 20000, 5, 300);
  plan.reliability->gpu_mtbf = 50000 * 3600.0;
  return plan;
}

TEST(GuiGoodput, TheWindowChartsGoodputFallingWithClusterSize) {
  MainWindow without(quickstart());
  EXPECT_FALSE(without.goodput_chart()->widget()->isVisibleTo(&without));
  MainWindow w(failing_quickstart());
  w.resize(1500, 950);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  EXPECT_TRUE(w.goodput_chart()->widget()->isVisible());
  const LineChartData& d = w.goodput_chart()->data();
  ASSERT_EQ(d.lines.size(), 3);
  const SeriesData& expected = d.lines[0];
  ASSERT_GE(expected.points.size(), 3);
  // Twice the nodes fail twice as often: the biggest cluster keeps less of its time.
  EXPECT_GT(expected.points.front().y(), expected.points.back().y());
  for (int i = 0; i < expected.points.size(); ++i) {
    EXPECT_GE(expected.points[i].y(), 0);
    EXPECT_LT(expected.points[i].y(), 100);
  }
  // The sampled spread, where sampled (not where failures run into the hundred thousands).
  ASSERT_GE(d.lines[1].points.size(), 3);
  ASSERT_EQ(d.lines[1].points.size(), d.lines[2].points.size());
  for (int i = 0; i < d.lines[1].points.size(); ++i)
    EXPECT_LE(d.lines[1].points[i].y(), d.lines[2].points[i].y());  // P10 <= P90
  EXPECT_TRUE(expected.tips.front().contains("time to train"))
      << expected.tips.front().toStdString();
  QTest::qWait(100);
  std::filesystem::create_directories(kShots);
  ASSERT_TRUE(w.grab().save(QString::fromStdString((kShots / "window-goodput.png").string())));
}

// The checkpoint interval is a field of the plan: typed, the goodput chart follows, as the same
// edit of the YAML would give; a plan without failure rates shows it disabled, saying why.
TEST(GuiGoodput, TheCheckpointIntervalFieldMovesTheGoodputChart) {
  MainWindow without(quickstart());
  QWidget* off = without.plan_panel()->editor("checkpoint.every");
  ASSERT_NE(off, nullptr);
  EXPECT_FALSE(off->isEnabled());
  EXPECT_EQ(off->toolTip().toStdString(), "applies to plans with failure rates (reliability:)");

  MainWindow w(failing_quickstart());
  QWidget* every = w.plan_panel()->editor("checkpoint.every");
  ASSERT_TRUE(every->isEnabled());
  LineChartData before = w.goodput_chart()->data();
  type_into(every, "5000");
  EXPECT_TRUE(w.plan_panel()->error("checkpoint.every").isEmpty())
      << w.plan_panel()->error("checkpoint.every").toStdString();
  QApplication::processEvents();
  core::Plan edited = failing_quickstart();
  edited.resilience.checkpoint_every = 5000;
  LineChartData expected = goodput_data(compute_curves(edited, w.curves().workers), "ring");
  const LineChartData& after = w.goodput_chart()->data();
  ASSERT_EQ(after.lines[0].points.size(), expected.lines[0].points.size());
  for (int i = 0; i < after.lines[0].points.size(); ++i)
    EXPECT_DOUBLE_EQ(after.lines[0].points[i].y(), expected.lines[0].points[i].y());
  EXPECT_NE(after.lines[0].points.back().y(), before.lines[0].points.back().y());
}

TEST(GuiGoodput, TheRenderedPageAddsTheGoodputChart) {
  core::Plan plan = failing_quickstart();
  auto page = curves_page(compute_curves(plan, fitting_sizes(plan)), 0, &plan);
  EXPECT_EQ(page->width(), 2400);  // throughput, efficiency, step time and goodput
  std::filesystem::create_directories(kShots);
  ASSERT_TRUE(page->grab().save(QString::fromStdString((kShots / "render-goodput.png").string())));
}

}  // namespace
}  // namespace scaleout::gui
