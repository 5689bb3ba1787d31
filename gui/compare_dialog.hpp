// Two results side by side (side_by_side.hpp): a small window with A, B, B - A and B / A per
// number; each cell also holds its exact value (Qt::UserRole).
#pragma once

#include <QDialog>
#include <vector>

#include "core/results/result.hpp"
#include "gui/side_by_side.hpp"

class QLabel;
class QTableWidget;

namespace scaleout::gui {

class CompareDialog : public QDialog {
 public:
  explicit CompareDialog(QWidget* parent = nullptr);
  // Shows `a` and `b`; the names say where they came from (their files).
  void show_pair(const core::RunResult& a, const QString& a_name, const core::RunResult& b,
                 const QString& b_name);
  const std::vector<SideBySideRow>& rows() const { return rows_; }
  QTableWidget* table() const { return table_; }

 private:
  std::vector<SideBySideRow> rows_;
  QLabel* names_ = nullptr;
  QTableWidget* table_ = nullptr;
};

}  // namespace scaleout::gui
