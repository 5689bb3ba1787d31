#include "gui/results_dock.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <algorithm>

#include "gui/compare_dialog.hpp"
#include "gui/result_files.hpp"
#include "gui/results_csv.hpp"
#include "gui/results_table.hpp"

namespace scaleout::gui {

ResultsDock::ResultsDock(QMainWindow* window, Opener open)
    : QDockWidget("Results", window), window_(window), open_(std::move(open)) {
  setObjectName("results");
  model_ = new ResultsTableModel(this);
  sorted_ = new QSortFilterProxyModel(this);
  sorted_->setSourceModel(model_);
  sorted_->setSortRole(ResultsTableModel::kValueRole);
  view_ = new QTableView;
  view_->setModel(sorted_);
  view_->setSortingEnabled(true);
  view_->sortByColumn(-1, Qt::AscendingOrder);  // opening order until a header is clicked
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view_->setAlternatingRowColors(true);
  view_->verticalHeader()->hide();
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setSectionResizeMode(ResultsTableModel::kFile, QHeaderView::Stretch);

  auto* body = new QWidget;
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(4, 2, 4, 4);
  auto* bar = new QHBoxLayout;
  count_ = new QLabel;
  bar->addWidget(count_, 1);
  auto* compare = new QPushButton("Compare the two selected");
  connect(compare, &QPushButton::clicked, this, [this] { compare_selected(); });
  bar->addWidget(compare);
  auto* csv = new QPushButton("Export CSV...");
  connect(csv, &QPushButton::clicked, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, "Export table", "results.csv", "CSV (*.csv)");
    if (!path.isEmpty()) export_csv(path);
  });
  bar->addWidget(csv);
  layout->addLayout(bar);
  layout->addWidget(view_);
  setWidget(body);
  hide();  // until there is a result to show
}

void ResultsDock::add_file_actions(QMenu* file) {
  file->addAction("Open results (JSON, one or more)...", this, [this] {
    QStringList paths = QFileDialog::getOpenFileNames(this, "Open results", {}, "Results (*.json)");
    if (!paths.isEmpty()) say(open_(paths));
  });
  file->addAction("Open results folder...", this, [this] {
    QString dir = QFileDialog::getExistingDirectory(this, "Open results folder");
    if (!dir.isEmpty()) open_folder(dir);
  });
  file->addAction("Export table as CSV...", this, [this] {
    QString path = QFileDialog::getSaveFileName(this, "Export table", "results.csv", "CSV (*.csv)");
    if (!path.isEmpty()) export_csv(path);
  });
  file->addAction("Compare the two selected results", this, [this] { compare_selected(); });
}

void ResultsDock::set_points(const std::vector<MeasuredPoint>& points, int tokens_per_sample) {
  model_->set_points(points, tokens_per_sample);
  count_->setText(QString("%1 result%2; error = (predicted - measured) / measured; select two "
                          "rows to compare them")
                      .arg(points.size())
                      .arg(points.size() == 1 ? "" : "s"));
  if (!points.empty()) show();
}

QString ResultsDock::open_folder(const QString& dir) {
  QStringList paths = json_files_in(dir);
  QString text = paths.isEmpty() ? QString("no *.json files in %1").arg(dir)
                                 : QString("%1: %2").arg(dir, open_(paths));
  say(text);
  return text;
}

QString ResultsDock::export_csv(const QString& path) {
  QString text = write_results_csv(*sorted_, path);
  say(text);
  return text;
}

CompareDialog* ResultsDock::compare_selected() {
  QModelIndexList rows = view_->selectionModel()->selectedRows();
  if (rows.size() != 2) {
    say(QString("select two results to compare (%1 selected; Ctrl+click adds a row)")
            .arg(rows.size()));
    return nullptr;
  }
  std::sort(rows.begin(), rows.end(),
            [](const QModelIndex& x, const QModelIndex& y) { return x.row() < y.row(); });
  const MeasuredPoint& a = model_->point(sorted_->mapToSource(rows[0]).row());
  const MeasuredPoint& b = model_->point(sorted_->mapToSource(rows[1]).row());
  if (!compare_) {
    compare_ = new CompareDialog(window_);
    compare_->setModal(false);
  }
  compare_->show_pair(a.measured, QFileInfo(QString::fromStdString(a.file)).fileName(), b.measured,
                      QFileInfo(QString::fromStdString(b.file)).fileName());
  compare_->show();
  compare_->raise();
  return compare_;
}

int ResultsDock::selected_point() const {
  QModelIndexList rows = view_->selectionModel()->selectedRows();
  if (rows.isEmpty()) return -1;
  return sorted_->mapToSource(rows.front()).row();
}

void ResultsDock::say(const QString& text) { window_->statusBar()->showMessage(text); }

}  // namespace scaleout::gui
