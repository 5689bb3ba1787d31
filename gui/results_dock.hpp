// The results table under the charts (a dock): the opened result files, sortable by any column,
// with the File menu's actions around it: open several results or a whole folder, export the
// table as CSV, and compare the two selected results side by side.
#pragma once

#include <QDockWidget>
#include <functional>
#include <vector>

#include "gui/measured.hpp"

class QLabel;
class QMainWindow;
class QMenu;
class QSortFilterProxyModel;
class QTableView;

namespace scaleout::gui {

class CompareDialog;
class ResultsTableModel;

class ResultsDock : public QDockWidget {
 public:
  // `open` lays result files over the window's curves and returns the status line.
  using Opener = std::function<QString(const QStringList& paths)>;
  ResultsDock(QMainWindow* window, Opener open);

  // File > Open results..., Open results folder..., Export table as CSV..., Compare the two
  // selected results (View > Results is the dock's toggleViewAction()).
  void add_file_actions(QMenu* file);
  // The rows: the window's measured points. Shows the dock when there are some.
  void set_points(const std::vector<MeasuredPoint>& points, int tokens_per_sample = 0);

  // Opens every *.json directly in `dir`; returns (and shows) the status line.
  QString open_folder(const QString& dir);
  // Writes the table, in the view's sort order, as CSV; returns (and shows) what happened.
  QString export_csv(const QString& path);
  // Compares the two selected rows (A the upper in the view); null when not exactly two.
  CompareDialog* compare_selected();
  // The selected row (the first of several) as an index of the points; -1 for none.
  int selected_point() const;

  ResultsTableModel* model() const { return model_; }
  QSortFilterProxyModel* sorted() const { return sorted_; }
  QTableView* view() const { return view_; }

 private:
  void say(const QString& text);

  QMainWindow* window_;
  Opener open_;
  ResultsTableModel* model_ = nullptr;
  QSortFilterProxyModel* sorted_ = nullptr;
  QTableView* view_ = nullptr;
  QLabel* count_ = nullptr;
  CompareDialog* compare_ = nullptr;  // its own window, made on first use
};

}  // namespace scaleout::gui
