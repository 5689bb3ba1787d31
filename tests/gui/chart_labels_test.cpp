// No chart of the window cuts a label: titles, axis labels and legends are read back from the
// charts' scenes as drawn, at the size the window opens with and at a narrow one.
#include <gtest/gtest.h>

#include <QApplication>
#include <QChartView>
#include <QGraphicsTextItem>
#include <QTest>
#include <filesystem>

#include "core/plan/plan_loader.hpp"
#include "gui/main_window.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

// Grabs the window as `shot` in the screenshots' folder for a person to look at.
void expect_nothing_cut(const std::string& plan, QSize size, const std::string& shot) {
  MainWindow w(core::load_plan(plan));
  w.resize(size);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QTest::qWait(100);  // the charts' layout settles as a person would see it
  QStringList cut = cut_labels(w);
  std::filesystem::create_directories(kShots);
  EXPECT_TRUE(w.grab().save(QString::fromStdString((kShots / shot).string())));
  EXPECT_TRUE(cut.isEmpty()) << plan << " at " << size.width() << "x" << size.height() << ":\n"
                             << cut.join("\n").toStdString();
}

TEST(GuiChartLabels, NoLabelIsCutOnASplitPlan) {
  std::string gpt3 = testing::source_path("experiments/model-parallel/gpt3-175b.yaml");
  expect_nothing_cut(gpt3, QSize(1400, 900), "labels-gpt3-1400.png");
  expect_nothing_cut(gpt3, QSize(1100, 760), "labels-gpt3-1100.png");
}

TEST(GuiChartLabels, NoLabelIsCutOnADataParallelPlan) {
  expect_nothing_cut(kQuickstart, QSize(1400, 900), "labels-quickstart-1400.png");
  expect_nothing_cut(kQuickstart, QSize(1100, 760), "labels-quickstart-1100.png");
}

}  // namespace
}  // namespace scaleout::gui
