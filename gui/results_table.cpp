#include "gui/results_table.hpp"

#include <QFileInfo>
#include <stdexcept>

#include "core/results/compare.hpp"

namespace scaleout::gui {

namespace {

struct ColumnSpec {
  const char* title;  // for people
  const char* name;   // for machines (the CSV header)
};

constexpr ColumnSpec kColumns[ResultsTableModel::kColumnCount] = {
    {"File", "file"},
    {"Strategy", "strategy"},
    {"Workers", "workers"},
    {"Engine", "engine"},
    {"Predicted step", "predicted_step_s"},
    {"Predicted samples/s", "predicted_throughput_samples_per_s"},
    {"Measured step", "measured_step_s"},
    {"Measured samples/s", "measured_throughput_samples_per_s"},
    {"Step error", "step_time_relative_error"},
    {"Throughput error", "throughput_relative_error"},
};

const core::ComparedValue& find(const std::vector<core::ComparedValue>& values, const char* name) {
  for (const auto& v : values)
    if (v.name == name) return v;
  throw std::logic_error(std::string("compare_results has no ") + name);
}

}  // namespace

void ResultsTableModel::set_points(const std::vector<MeasuredPoint>& points,
                                   int tokens_per_sample) {
  beginResetModel();
  points_ = points;
  tokens_per_sample_ = tokens_per_sample;
  rows_.clear();
  for (const auto& m : points_) {
    auto values = core::compare_results(m.predicted, m.measured);
    const auto& step = find(values, "step_time_s");
    const auto& throughput = find(values, "throughput_samples_per_s");
    rows_.push_back({step.predicted, throughput.predicted, step.measured, throughput.measured,
                     step.relative_error, throughput.relative_error});
  }
  endResetModel();
}

int ResultsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(points_.size());
}

int ResultsTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant ResultsTableModel::value(int row, int column) const {
  const MeasuredPoint& m = points_[row];
  const Row& r = rows_[row];
  switch (column) {
    case kFile:
      return QFileInfo(QString::fromStdString(m.file)).fileName();
    case kStrategy:
      return QString::fromStdString(m.measured.strategy);
    case kWorkers:
      return m.measured.workers;
    case kEngine:
      return QString::fromStdString(m.measured.engine);
    case kPredictedStep:
      return r.predicted_step;
    case kPredictedThroughput:
      return r.predicted_throughput;
    case kMeasuredStep:
      return r.measured_step;
    case kMeasuredThroughput:
      return r.measured_throughput;
    case kStepError:
      return r.step_error;
    case kThroughputError:
      return r.throughput_error;
  }
  return {};
}

QVariant ResultsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) return {};
  int column = index.column();
  QVariant v = value(index.row(), column);
  if (role == kValueRole) return v;
  if (role == Qt::ToolTipRole && column == kFile)
    return QString::fromStdString(points_[index.row()].file);
  if (role == Qt::TextAlignmentRole)
    return column >= kWorkers && column != kEngine ? int(Qt::AlignRight | Qt::AlignVCenter)
                                                   : int(Qt::AlignLeft | Qt::AlignVCenter);
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kPredictedStep:
    case kMeasuredStep:
      return QString::number(v.toDouble() * 1e3, 'f', 3) + " ms";
    case kPredictedThroughput:
    case kMeasuredThroughput: {
      if (tokens_per_sample_ == 0) return QString::number(v.toDouble(), 'f', 1);
      double tokens = v.toDouble() * tokens_per_sample_;
      return QString::number(tokens, 'f', 0);
    }
    case kStepError:
    case kThroughputError:
      return QString::asprintf("%+.1f %%", v.toDouble() * 100);
  }
  return v;
}

QVariant ResultsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= kColumnCount) return {};
  if (role == kValueRole) return QString(kColumns[section].name);
  bool tokens =
      tokens_per_sample_ > 0 && (section == kPredictedThroughput || section == kMeasuredThroughput);
  if (role == Qt::DisplayRole && tokens)
    return QString(section == kPredictedThroughput ? "Predicted tokens/s" : "Measured tokens/s");
  if (role == Qt::DisplayRole) return QString(kColumns[section].title);
  if (role == Qt::ToolTipRole && section >= kStepError)
    return QString("(predicted - measured) / measured, as scaleout compare reports it");
  return {};
}

}  // namespace scaleout::gui
