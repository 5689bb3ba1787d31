// The opened result files as a table model (no widgets): per file its strategy, workers and
// engine, the window's analytic prediction of the same strategy and size, what the file measured,
// and the error between them, as `scaleout compare` computes it (core::compare_results).
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "gui/measured.hpp"

namespace scaleout::gui {

class ResultsTableModel : public QAbstractTableModel {
 public:
  enum Column {
    kFile,
    kStrategy,
    kWorkers,
    kEngine,
    kPredictedStep,
    kPredictedThroughput,
    kMeasuredStep,
    kMeasuredThroughput,
    kStepError,
    kThroughputError,
    kColumnCount
  };
  // data(): the cell's exact value (QString, int or double; errors as fractions), for sorting and
  // export. headerData(): the column's machine name ("measured_step_s").
  static constexpr int kValueRole = Qt::UserRole;

  using QAbstractTableModel::QAbstractTableModel;

  // Replaces the rows: one per point, in this order. `tokens_per_sample` > 0 (a transformer's
  // sequence): the throughput columns show tokens/s; their exact values and machine names stay in
  // samples/s.
  void set_points(const std::vector<MeasuredPoint>& points, int tokens_per_sample = 0);
  const MeasuredPoint& point(int row) const { return points_.at(row); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant value(int row, int column) const;

  struct Row {
    double predicted_step, predicted_throughput, measured_step, measured_throughput;
    double step_error, throughput_error;
  };
  std::vector<MeasuredPoint> points_;
  std::vector<Row> rows_;
  int tokens_per_sample_ = 0;
};

}  // namespace scaleout::gui
