#include "gui/main_window.hpp"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QMenuBar>
#include <QScrollArea>
#include <QStatusBar>
#include <QVBoxLayout>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"
#include "gui/answer_panel.hpp"
#include "gui/chart_data.hpp"
#include "gui/goodput_chart_data.hpp"
#include "gui/plan_panel.hpp"
#include "gui/point_timeline.hpp"
#include "gui/refine_bar.hpp"
#include "gui/result_files.hpp"
#include "gui/result_links.hpp"
#include "gui/results_dock.hpp"
#include "gui/split_chart_data.hpp"
#include "gui/split_table.hpp"
#include "gui/timeline_window.hpp"
#include "gui/topology_view.hpp"

namespace scaleout::gui {

namespace {

// The sweep range for a freshly opened plan: what its cluster can hold.
WhatIf fit_range(const core::Plan& plan) {
  WhatIf w;
  w.plan = plan;
  std::vector<int> sizes = fitting_sizes(plan);
  w.min_workers = sizes.front();
  w.max_workers = sizes.back();
  return w;
}

}  // namespace

MainWindow::MainWindow(const core::Plan& plan) {
  setWindowTitle("scaleout: how training scales");
  auto* central = new QWidget;
  auto* row = new QHBoxLayout(central);
  plan_panel_ = new PlanPanel;
  auto* scroll = new QScrollArea;
  scroll->setWidget(plan_panel_);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setFixedWidth(350);
  row->addWidget(scroll);

  auto* grid = new QGridLayout;
  throughput_ = make_line_chart(central);
  efficiency_ = make_line_chart(central);
  auto* bars = new QWidget;
  auto* bars_layout = new QVBoxLayout(bars);
  bars_layout->setContentsMargins(0, 0, 0, 0);
  auto* size_row = new QHBoxLayout;
  size_row->addWidget(new QLabel("step-time breakdown at"));
  size_ = new QComboBox;
  size_row->addWidget(size_);
  size_row->addWidget(new QLabel("workers"));
  size_row->addStretch();
  bars_layout->addLayout(size_row);
  auto* bar_row = new QHBoxLayout;
  breakdown_ = make_bar_chart(bars);
  bar_row->addWidget(breakdown_->widget(), 1);
  staleness_ = make_histogram_chart(bars);
  bar_row->addWidget(staleness_->widget(), 1);
  memory_ = make_bar_chart(bars);
  bar_row->addWidget(memory_->widget(), 1);
  goodput_ = make_line_chart(bars);
  bar_row->addWidget(goodput_->widget(), 1);
  bars_layout->addLayout(bar_row, 1);
  split_table_ = new SplitTable(bars);  // a transformer plan's best splits at the chosen size
  split_table_->setMaximumHeight(170);
  split_table_->on_pick([this](const core::Parallelism& split) { use_split(split); });
  bars_layout->addWidget(split_table_);
  connect(size_, &QComboBox::currentIndexChanged, this, [this] { redraw_breakdown(); });

  auto* side = new QWidget;
  auto* side_layout = new QVBoxLayout(side);
  answer_panel_ = new AnswerPanel;
  answer_panel_->on_splits([this] { redraw(); });
  side_layout->addWidget(answer_panel_, 1);
  measured_text_ = new QLabel;
  measured_text_->setWordWrap(true);
  side_layout->addWidget(measured_text_);

  grid->addWidget(throughput_->widget(), 0, 0);
  grid->addWidget(efficiency_->widget(), 0, 1);
  grid->addWidget(bars, 1, 0);
  grid->addWidget(side, 1, 1);
  grid->setColumnStretch(0, 1);
  grid->setColumnStretch(1, 1);
  row->addLayout(grid, 1);
  setCentralWidget(central);
  results_ =
      new ResultsDock(this, [this](const QStringList& paths) { return open_results(paths); });
  addDockWidget(Qt::BottomDockWidgetArea, results_);
  point_timeline_ = new PointTimeline;
  statusBar()->addPermanentWidget(point_timeline_);
  build_menus();
  resize(1500, 950);

  refine_bar_ = new RefineBar;
  statusBar()->addPermanentWidget(refine_bar_);
  refine_bar_->on_request([this] { start_refine(); });
  refine_bar_->on_point(
      [this](const RefinePoint& p, const core::RunResult& r) { apply_refined(p.strategy, r); });
  plan_panel_->on_change([this](const WhatIf& w) {
    saved_path_.clear();
    recompute(w);
  });
  saved_path_ = QString::fromStdString(plan.file);
  WhatIf w = fit_range(plan);
  plan_panel_->set_what_if(w);
  recompute(w);
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("Open plan...", this, [this] {
    QString path = QFileDialog::getOpenFileName(this, "Open plan", {}, "Plans (*.yaml *.yml)");
    if (!path.isEmpty()) statusBar()->showMessage(open_plan(path));
  });
  results_->add_file_actions(file);  // open results, a folder of them, export, compare
  file->addAction("Open trace (Chrome JSON)...", this, [this] {
    QString path = QFileDialog::getOpenFileName(this, "Open trace", {}, "Traces (*.json)");
    if (!path.isEmpty()) statusBar()->showMessage(open_trace(path));
  });
  file->addAction("Save plan as YAML...", this, [this] {
    QString path = QFileDialog::getSaveFileName(this, "Save plan", "plan.yaml", "Plans (*.yaml)");
    if (!path.isEmpty()) statusBar()->showMessage(save_plan_as(path));
  });
  file->addAction("Copy as CLI", this, [this] {
    QString command = cli_command();
    if (command.isEmpty()) {
      statusBar()->showMessage("save the plan first: it has edits");
    } else {
      QApplication::clipboard()->setText(command);
      statusBar()->showMessage("copied: " + command);
    }
  });
  file->addSeparator();
  file->addAction("Export throughput chart (PNG, SVG)...", this,
                  [this] { export_chart(throughput_, "throughput.png"); });
  file->addAction("Export efficiency chart (PNG, SVG)...", this,
                  [this] { export_chart(efficiency_, "efficiency.png"); });
  file->addAction("Export breakdown chart (PNG, SVG)...", this,
                  [this] { export_chart(breakdown_, "breakdown.png"); });
  file->addAction("Export staleness chart (PNG, SVG)...", this,
                  [this] { export_chart(staleness_, "staleness.png"); });
  file->addSeparator();
  file->addAction("Quit", QKeySequence::Quit, qApp, &QApplication::quit);
  QMenu* view = menuBar()->addMenu("&View");
  view->addAction("Cluster topology at the chosen size", this, [this] { show_topology(); });
  view->addAction(results_->toggleViewAction());
  add_extra_actions(file, view);
}

QString MainWindow::open_trace(const QString& path) {
  if (!timeline_) {
    timeline_ = new TimelineWindow(this);
    timeline_->setWindowFlag(Qt::Window);
  }
  QString said = timeline_->open(path);
  if (said.startsWith("timeline of ")) {
    timeline_->show();
    timeline_->raise();
  }
  return said;
}

TopologyView* MainWindow::show_topology() {
  if (!topology_) {
    topology_ = new TopologyView(this);
    topology_->setWindowFlag(Qt::Window);
    topology_->resize(1100, 700);
  }
  bool ok = false;
  int workers = size_->currentText().toInt(&ok);
  core::Plan plan = what_if_.plan;
  if (ok) plan.training.workers = workers;
  std::string strategy = core::strategy_name(plan.strategy.kind);
  const core::RunResult* r = find_point(curves_, strategy, plan.training.workers);
  bool simulated = r && r->engine == "sim";
  try {
    core::Topology topo = core::Topology::build(plan.cluster, core::devices_needed(plan));
    // An opened result that ran on this cluster at this size colours it first (result_links.hpp).
    ResultLinks file = result_for_topology(measured_, results_->selected_point(), plan, topo);
    QString traffic =
        file.point  ? "traffic of " + QFileInfo(QString::fromStdString(file.point->file)).fileName()
        : simulated ? QString("traffic of the SimGrid run of %1").arg(strategy.c_str())
                    : QString("Refine with SimGrid to colour the links by traffic");
    QString caption = QString("%1: %2 nodes, %3 devices for %4 workers; %5")
                          .arg(QString::fromStdString(plan.cluster.name))
                          .arg(topo.num_nodes())
                          .arg(topo.num_devices())
                          .arg(plan.training.workers)
                          .arg(traffic);
    topology_->show_topology(topo,
                             file.point  ? file.point->measured.links
                             : simulated ? r->links
                                         : std::vector<core::LinkLoad>{},
                             caption);
    if (!file.mismatch.empty()) statusBar()->showMessage(QString::fromStdString(file.mismatch));
    topology_->setWindowTitle("scaleout: cluster " + QString::fromStdString(plan.cluster.name));
    topology_->show();
    topology_->raise();
  } catch (const std::exception& e) {
    statusBar()->showMessage(QString::fromStdString(e.what()));
  }
  return topology_;
}

void MainWindow::export_chart(Chart* chart, const QString& name) {
  QString path = QFileDialog::getSaveFileName(this, "Export chart", name,
                                              "PNG images (*.png);;SVG drawings (*.svg)");
  if (path.isEmpty()) return;
  bool ok = chart->save(path, chart->widget()->size());
  statusBar()->showMessage(ok ? "wrote " + path : "could not write " + path);
}

QString MainWindow::open_plan(const QString& path) {
  try {
    WhatIf w = fit_range(core::load_plan(path.toStdString()));
    saved_path_ = path;
    plan_panel_->set_what_if(w);
    size_->blockSignals(true);
    size_->clear();  // a new plan's breakdown opens at its own size
    size_->blockSignals(false);
    recompute(w);
    return "opened " + path;
  } catch (const core::InputError& e) {
    return QString::fromStdString(e.what());
  }
}

QString MainWindow::save_plan_as(const QString& path) {
  try {
    core::save_plan(what_if_.plan, path.toStdString());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  saved_path_ = path;
  return "saved " + path;
}

QString MainWindow::cli_command() const {
  if (saved_path_.isEmpty()) return {};
  QStringList strategies;
  for (const auto& c : curves_.curves) strategies << QString::fromStdString(c.strategy);
  return QString(
             "scaleout sweep %1 --workers %2:%3:x2 --strategies %4 --engine analytic -o sweep.csv")
      .arg(saved_path_)
      .arg(what_if_.min_workers)
      .arg(what_if_.max_workers)
      .arg(strategies.join(","));
}

QString MainWindow::open_result(const QString& path) {
  try {
    measured_.push_back(load_measured(path.toStdString(), what_if_.plan));
  } catch (const core::InputError& e) {
    return QString::fromStdString(e.what());
  }
  redraw();
  return "measured run from " + path;
}

QString MainWindow::open_results(const QStringList& paths) {
  OpenedResults opened = load_results(paths, what_if_.plan);
  measured_.insert(measured_.end(), opened.points.begin(), opened.points.end());
  redraw();
  return describe(opened);
}

void MainWindow::start_refine() {
  std::vector<RefinePoint> points;
  for (int n : curves_.workers)  // small sizes first: they finish soonest
    for (const auto& c : curves_.curves)
      if (n <= kRefineMaxWorkers && find_point(curves_, c.strategy, n))
        points.push_back({*core::parse_strategy_kind(c.strategy), n});
  refine_bar_->start(what_if_.plan, std::move(points));
}

void MainWindow::apply_refined(core::StrategyKind strategy, const core::RunResult& r) {
  for (auto& c : curves_.curves)
    if (c.strategy == core::strategy_name(strategy))
      for (auto& p : c.points)
        if (p.workers == r.workers) p = r;
  redraw();
}

void MainWindow::recompute(const WhatIf& w) {
  refine_bar_->cancel();  // its points belong to the plan before this edit
  QElapsedTimer timer;
  timer.start();
  what_if_ = w;
  curves_ = compute_curves(w.plan, doubling_sizes(w.min_workers, w.max_workers));
  // Measured runs are predicted again on the edited plan; one that no longer fits is dropped.
  std::vector<MeasuredPoint> kept;
  for (const auto& m : measured_) {
    try {
      kept.push_back(load_measured(m.file, w.plan));
    } catch (const core::InputError&) {
    }
  }
  measured_ = std::move(kept);
  redraw();
  plan_panel_->set_warnings(curve_warnings(curves_));
  answer_panel_->set_what_if(w, &curves_);
  statusBar()->showMessage(
      QString("analytic: %1 points in %2 ms%3")
          .arg(curves_.curves.size() * curves_.workers.size())
          .arg(timer.elapsed())
          .arg(curves_.errors.empty()
                   ? QString()
                   : QString(", %1 sizes a strategy cannot run").arg(curves_.errors.size())));
}

void MainWindow::redraw() {
  if (charts_splits(what_if_.plan)) {
    redraw_splits();
  } else {
    throughput_->show_data(throughput_data(curves_, measured_));
    efficiency_->show_data(efficiency_data(curves_));
  }
  QString chosen = size_->currentText();
  if (chosen.isEmpty()) chosen = QString::number(what_if_.plan.training.workers);
  size_->blockSignals(true);
  size_->clear();
  for (int n : curves_.workers) size_->addItem(QString::number(n));
  int index = size_->findText(chosen);
  size_->setCurrentIndex(index >= 0 ? index : static_cast<int>(curves_.workers.size()) / 2);
  size_->blockSignals(false);
  redraw_breakdown();
  BarChartData memory = memory_data(what_if_.plan);
  memory_->widget()->setVisible(!memory.categories.isEmpty());
  memory_->show_data(memory);
  LineChartData goodput = goodput_data(curves_, core::strategy_name(what_if_.plan.strategy.kind));
  goodput_->widget()->setVisible(!goodput.lines.isEmpty());
  goodput_->show_data(goodput);
  // The numbers are in the results table; a long list here would squeeze the planning answer.
  QString text;
  if (!measured_.empty())
    text = QString(
               "<b>Measured runs</b>: %1 on the throughput chart (large dots), with their "
               "predictions and errors in the Results table below")
               .arg(measured_.size());
  measured_text_->setText(text);
  const auto& transformer = what_if_.plan.workload.transformer;
  results_->set_points(measured_, transformer ? transformer->sequence : 0);
}

void MainWindow::redraw_breakdown() {
  bool ok = false;
  int workers = size_->currentText().toInt(&ok);
  if (ok && charts_splits(what_if_.plan)) {
    redraw_split_breakdown(workers);
  } else if (ok) {
    breakdown_->show_data(breakdown_data(curves_, workers));
  }
  split_table_->setVisible(ok && charts_splits(what_if_.plan));
  const core::RunResult* ps =
      ok ? find_point(curves_, core::strategy_name(core::StrategyKind::kPs), workers) : nullptr;
  bool async = what_if_.plan.strategy.ps_mode == core::PsMode::kAsync;
  staleness_->widget()->setVisible(async && ps);
  if (async && ps) staleness_->show_data(staleness_data(*ps));
}

}  // namespace scaleout::gui
