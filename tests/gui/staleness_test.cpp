// The staleness histogram: its bars are the simulated result's histogram, hovering tells the
// exact count, and the window shows it only for asynchronous PS plans.
#include <gtest/gtest.h>

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <filesystem>
#include <memory>

#include "gui/chart_data.hpp"
#include "gui/main_window.hpp"
#include "sim/simulator.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;

// One-GPU hosts on 10 Gb/s, 40 MB of gradient, 0.1 s of compute per step.
core::Plan async_ps_plan(int workers) {
  core::Plan p = testing::collective_plan(testing::switch_cluster(1, 1.25e9, 5e-6),
                                          core::StrategyKind::kPs, workers, 1e7);
  p.workload.flops_per_sample = 1e13;
  p.training.steps = 20;
  p.strategy.ps_mode = core::PsMode::kAsync;
  return p;
}

QBarSet* only_bar_set(Chart* chart) {
  auto* view = dynamic_cast<QChartView*>(chart->widget());
  auto series = view->chart()->series();
  if (series.size() != 1) return nullptr;
  auto* bars = qobject_cast<QBarSeries*>(series[0]);
  return bars && bars->count() == 1 ? bars->barSets()[0] : nullptr;
}

TEST(GuiStaleness, BarsAreTheSimulatedHistogram) {
  core::RunResult r = sim::simulate(async_ps_plan(8));
  ASSERT_FALSE(r.staleness.histogram.empty());
  long total = 0;
  for (long c : r.staleness.histogram) total += c;
  ASSERT_EQ(total, r.gradients.applied) << "every applied gradient is in one bin";

  std::unique_ptr<HistogramChart> chart(make_histogram_chart(nullptr));
  chart->show_data(staleness_data(r));
  QBarSet* set = only_bar_set(chart.get());
  ASSERT_NE(set, nullptr);
  ASSERT_EQ(set->count(), static_cast<int>(r.staleness.histogram.size()));
  for (int s = 0; s < set->count(); ++s) {
    EXPECT_EQ(set->at(s), static_cast<double>(r.staleness.histogram[s])) << "staleness " << s;
    EXPECT_TRUE(chart->data().tips[s].startsWith(
        QString("staleness %1: %2 gradients").arg(s).arg(r.staleness.histogram[s])));
  }
  QString subtitle = chart->data().subtitle;
  EXPECT_TRUE(
      subtitle.contains(QString("p50 %1, p99 %2").arg(r.staleness.p50).arg(r.staleness.p99)))
      << subtitle.toStdString();
  EXPECT_TRUE(subtitle.contains(
      QString("applied %1, dropped %2").arg(r.gradients.applied).arg(r.gradients.dropped)));
  fs::create_directories(kShots);
  ASSERT_TRUE(
      chart->save(QString::fromStdString((kShots / "staleness.png").string()), QSize(640, 420)));
  EXPECT_GT(fs::file_size(kShots / "staleness.png"), 10000u);
}

TEST(GuiStaleness, WindowShowsItForAsynchronousPsOnly) {
  core::Plan sync = quickstart();
  sync.strategy.ps_mode = core::PsMode::kSync;
  MainWindow plain(sync);
  EXPECT_TRUE(plain.staleness_chart()->widget()->isHidden());

  core::Plan async = sync;
  async.strategy.ps_mode = core::PsMode::kAsync;
  MainWindow w(async);
  EXPECT_FALSE(w.staleness_chart()->widget()->isHidden());
  w.breakdown_size()->setCurrentText("64");
  const core::RunResult* ps = find_point(w.curves(), "ps", 64);
  ASSERT_NE(ps, nullptr);
  EXPECT_TRUE(w.staleness_chart()->data().title.contains("64 workers"));
  EXPECT_TRUE(w.staleness_chart()->data().subtitle.contains(
      QString("mean %1").arg(ps->staleness.mean, 0, 'f', 2)));
  EXPECT_DOUBLE_EQ(ps->staleness.mean, 63) << "the closed form: N-1 pushes since a pull";
  w.resize(1500, 950);
  fs::create_directories(kShots);
  ASSERT_TRUE(w.grab().toImage().save(
      QString::fromStdString((kShots / "window-async-ps.png").string()), "PNG"));
}

}  // namespace
}  // namespace scaleout::gui
