// The main window's entries for opening a topology or model from anywhere, the timeline of the
// chosen point, and the topology drawing as SVG.
#include <QComboBox>
#include <QFileDialog>
#include <QMenu>
#include <QStatusBar>
#include <algorithm>
#include <exception>

#include "analytic/pipeline_trace.hpp"
#include "core/files/temp_files.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "gui/point_timeline.hpp"
#include "gui/svg_export.hpp"
#include "gui/topology_view.hpp"

namespace scaleout::gui {

QStringList curve_warnings(const Curves& curves) {
  std::vector<std::pair<std::string, QStringList>> said;  // warning -> the strategies it is of
  for (const auto& c : curves.curves)
    for (const auto& p : c.points)
      for (const auto& w : p.warnings) {
        auto it =
            std::find_if(said.begin(), said.end(), [&](const auto& s) { return s.first == w; });
        if (it == said.end()) it = said.insert(said.end(), {w, {}});
        QString strategy = QString::fromStdString(c.strategy);
        if (!it->second.contains(strategy)) it->second << strategy;
      }
  QStringList out;
  for (const auto& [w, strategies] : said)
    out << strategies.join(", ") + ": " + QString::fromStdString(w);
  return out;
}

void MainWindow::add_extra_actions(QMenu* file, QMenu* view) {
  QAction* first = file->actions().value(1);  // after "Open plan..."
  auto open_part = [this](const std::string& key, const QString& title) {
    QString path = QFileDialog::getOpenFileName(this, title, {}, "YAML (*.yaml *.yml)");
    if (path.isEmpty()) return;
    QString error = plan_panel_->open_part(key, path.toStdString());
    statusBar()->showMessage(error.isEmpty() ? "opened " + path : error);
  };
  auto* topology = new QAction("Open topology...", file);
  connect(topology, &QAction::triggered, this, [=] { open_part("cluster", "Open topology"); });
  auto* model = new QAction("Open model...", file);
  connect(model, &QAction::triggered, this, [=] { open_part("workload", "Open model"); });
  file->insertActions(first, {topology, model});
  file->addAction("Export topology drawing (SVG)...", this, [this] {
    QString path = QFileDialog::getSaveFileName(this, "Export topology", "topology.svg",
                                                "SVG drawings (*.svg)");
    if (!path.isEmpty()) statusBar()->showMessage(export_topology_svg(path));
  });
  view->addAction("Timeline of the chosen point (simulate)", this,
                  [this] { show_point_timeline(); });
  view->addAction("Pipeline schedule of the plan (closed form)", this,
                  [this] { statusBar()->showMessage(show_pipeline_schedule()); });
  view->addAction("Pipeline schedule of the plan (simulate)", this,
                  [this] { statusBar()->showMessage(simulate_pipeline_schedule()); });
  point_timeline_->on_trace(
      [this](const QString& path) { statusBar()->showMessage(open_trace(path)); });
  point_timeline_->on_failure([this](const QString& why) { statusBar()->showMessage(why); });
}

void MainWindow::show_point_timeline() {
  bool ok = false;
  int workers = breakdown_size()->currentText().toInt(&ok);
  if (!ok) return;
  core::Plan plan = what_if_.plan;
  if (workers != plan.training.workers) plan.strategy.grid.reset();  // a grid fits one size
  plan.training.workers = workers;
  point_timeline_->start(plan, plan.strategy.kind, workers);
}

QString MainWindow::show_pipeline_schedule() {
  const core::Plan& plan = what_if_.plan;
  if (!plan.parallelism)
    return "the plan has no pipeline: give it parallelism: (a transformer model)";
  // A folder of its own, so that the timeline's title names the schedule, not a random file.
  std::string dir;
  QString said;
  try {
    dir = core::make_temp_dir("scaleout-pipeline");
    std::string path = dir + "/pipeline-schedule.json";
    sim::pipeline_trace(plan).write(path, sim::pipeline_trace_name(plan));
    said = open_trace(QString::fromStdString(path));  // the window keeps what it read
  } catch (const std::exception& e) {
    said = QString("no pipeline schedule: %1").arg(e.what());
  }
  if (!dir.empty()) core::remove_temp(dir);
  if (said.startsWith("timeline of "))
    said = "timeline of the pipeline schedule (" +
           QString::fromStdString(sim::pipeline_trace_name(plan)) + ")";
  return said;
}

QString MainWindow::simulate_pipeline_schedule() {
  const core::Plan& plan = what_if_.plan;
  if (!plan.parallelism)
    return "the plan has no pipeline: give it parallelism: (a transformer model)";
  point_timeline_->start(plan, plan.strategy.kind, plan.training.workers);
  return QString("simulating the pipeline schedule on %1 workers").arg(plan.training.workers);
}

QString MainWindow::export_topology_svg(const QString& path) {
  TopologyView* view = show_topology();
  return save_scene_svg(view, path) ? "wrote " + path : "could not write " + path;
}

}  // namespace scaleout::gui
