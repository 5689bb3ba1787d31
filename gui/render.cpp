#include "gui/render.hpp"

#include <QHBoxLayout>
#include <QSaveFile>
#include <QVBoxLayout>
#include <QWidget>
#include <algorithm>
#include <memory>

#include "gui/chart_data.hpp"
#include "gui/goodput_chart_data.hpp"
#include "gui/split_chart_data.hpp"
#include "gui/svg_export.hpp"

namespace scaleout::gui {

namespace {

// The middle size: at the largest, a parameter server's step can dwarf every other bar.
int middle_size(const Curves& curves) {
  return curves.workers.empty() ? 0 : curves.workers[curves.workers.size() / 2];
}

// A plan with failure rates: its goodput against cluster size, as the window shows it. False (and
// nothing added) without them.
bool add_goodput(QHBoxLayout& row, QWidget* page, const Curves& curves, const core::Plan& plan) {
  if (!plan.reliability) return false;
  LineChart* goodput = make_line_chart(page);
  goodput->show_data(goodput_data(curves, core::strategy_name(plan.strategy.kind)));
  row.addWidget(goodput->widget());
  return true;
}

// A model-parallel transformer plan's page: tokens/s and MFU of the best split and the plan's own
// against cluster size, the step by kind of the plan's split and the search's top three at
// `workers`, and the memory each stage needs.
std::unique_ptr<QWidget> splits_page(const Curves& curves, int workers, const core::Plan& plan) {
  auto page = std::make_unique<QWidget>();
  page->setStyleSheet("background: white;");
  auto* row = new QHBoxLayout(page.get());
  core::Plan fixed = sim::with_global_batch(plan);
  std::vector<sim::SizeBest> best = sim::best_split_per_size(fixed, curves.workers);
  std::vector<const core::RunResult*> own = own_split_points(plan, curves);
  sim::SplitSearchOptions three;
  three.top = 3;
  std::vector<sim::SplitCandidate> top = sim::search_at(fixed, workers, three).best;
  const core::RunResult* own_there = nullptr;
  for (std::size_t i = 0; i < curves.workers.size(); ++i)
    if (curves.workers[i] == workers) own_there = own[i];
  LineChart* tokens = make_line_chart(page.get());
  LineChart* mfu = make_line_chart(page.get());
  BarChart* breakdown = make_bar_chart(page.get());
  BarChart* memory = make_bar_chart(page.get());
  tokens->show_data(split_scaling_data(best, own, curves.workers, false));
  mfu->show_data(split_scaling_data(best, own, curves.workers, true));
  breakdown->show_data(split_breakdown_data(top, own_there, workers));
  memory->show_data(memory_data(plan));
  for (Chart* c : std::initializer_list<Chart*>{tokens, mfu, breakdown, memory})
    row->addWidget(c->widget());
  int width = 2400;
  if (add_goodput(*row, page.get(), curves, plan)) width = 3000;
  page->resize(width, 600);
  return page;
}

}  // namespace

std::unique_ptr<QWidget> curves_page(const Curves& curves, int breakdown_workers,
                                     const core::Plan* plan) {
  int workers = breakdown_workers > 0 ? breakdown_workers : middle_size(curves);
  if (plan && charts_splits(*plan) && workers > 0) return splits_page(curves, workers, *plan);
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
  int width = 1800;
  if (plan && plan->parallelism) {  // the memory each stage needs, as the window shows it
    BarChart* memory = make_bar_chart(page.get());
    memory->show_data(memory_data(*plan));
    row->addWidget(memory->widget());
    width = 2400;
  }
  if (plan && add_goodput(*row, page.get(), curves, *plan)) width += 600;
  page->resize(width, 560);
  return page;
}

QImage render_curves(const Curves& curves, int breakdown_workers) {
  return curves_page(curves, breakdown_workers)->grab().toImage();
}

namespace {

// A crossover study: each sweep's scaling efficiency by strategy, one chart under another, titled
// by the sweep.
std::unique_ptr<QWidget> crossovers_page(const sim::StudyOutcome& outcome) {
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
  return page;
}

}  // namespace

std::unique_ptr<QWidget> study_page(const sim::StudyOutcome& outcome) {
  if (outcome.cases.empty() && !outcome.crossovers.empty()) return crossovers_page(outcome);
  auto page = std::make_unique<QWidget>();
  page->setStyleSheet("background: white;");
  auto* row = new QHBoxLayout(page.get());
  BarChart* chart = make_bar_chart(page.get());
  chart->show_data(study_data(outcome));
  row->addWidget(chart->widget());
  page->resize(std::max(700, 160 + 70 * static_cast<int>(outcome.cases.size())), 480);
  return page;
}

QImage render_study(const sim::StudyOutcome& outcome) {
  return study_page(outcome)->grab().toImage();
}

bool save_page(QWidget& page, const QString& path) {
  if (path.endsWith(".svg", Qt::CaseInsensitive)) return save_widget_svg(&page, path);
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || !page.grab().toImage().save(&file, "PNG")) return false;
  return file.commit();
}

}  // namespace scaleout::gui
