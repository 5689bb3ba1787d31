#include "gui/render.hpp"

#include <QHBoxLayout>
#include <QVBoxLayout>
#include <QWidget>
#include <algorithm>
#include <memory>

#include "gui/chart_data.hpp"

namespace scaleout::gui {

namespace {

// The middle size: at the largest, a parameter server's step can dwarf every other bar.
int middle_size(const Curves& curves) {
  return curves.workers.empty() ? 0 : curves.workers[curves.workers.size() / 2];
}

}  // namespace

QImage render_curves(const Curves& curves, int breakdown_workers) {
  auto page = std::make_unique<QWidget>();
  page->setStyleSheet("background: white;");
  auto* row = new QHBoxLayout(page.get());
  LineChart* throughput = make_line_chart(page.get());
  LineChart* efficiency = make_line_chart(page.get());
  BarChart* breakdown = make_bar_chart(page.get());
  throughput->show_data(throughput_data(curves));
  efficiency->show_data(efficiency_data(curves));
  breakdown->show_data(
      breakdown_data(curves, breakdown_workers > 0 ? breakdown_workers : middle_size(curves)));
  for (Chart* c : std::initializer_list<Chart*>{throughput, efficiency, breakdown})
    row->addWidget(c->widget());
  page->resize(1800, 560);
  return page->grab().toImage();
}

namespace {

// A crossover study: each sweep's scaling efficiency by strategy, one chart under another, titled
// by the sweep.
QImage render_crossovers(const sim::StudyOutcome& outcome) {
  auto page = std::make_unique<QWidget>();
  page->setStyleSheet("background: white;");
  auto* column = new QVBoxLayout(page.get());
  for (const auto& x : outcome.crossovers) {
    LineChart* chart = make_line_chart(page.get());
    LineChartData d = crossover_data(x);
    chart->show_data(d);
    column->addWidget(chart->widget());
  }
  page->resize(1100, 480 * static_cast<int>(outcome.crossovers.size()));
  return page->grab().toImage();
}

}  // namespace

QImage render_study(const sim::StudyOutcome& outcome) {
  if (outcome.cases.empty() && !outcome.crossovers.empty()) return render_crossovers(outcome);
  auto page = std::make_unique<QWidget>();
  page->setStyleSheet("background: white;");
  auto* row = new QHBoxLayout(page.get());
  BarChart* chart = make_bar_chart(page.get());
  chart->show_data(study_data(outcome));
  row->addWidget(chart->widget());
  page->resize(std::max(700, 160 + 70 * static_cast<int>(outcome.cases.size())), 480);
  return page->grab().toImage();
}

}  // namespace scaleout::gui
