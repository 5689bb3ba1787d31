#include "gui/compare_dialog.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

namespace scaleout::gui {

namespace {

// Seconds as milliseconds, bytes as MB, the rest as they are; `sign` for differences.
QString format_value(double v, const std::string& unit, bool sign) {
  QString plus = sign && v > 0 ? "+" : "";
  if (unit == "s") return plus + QString::number(v * 1e3, 'f', 3) + " ms";
  if (unit == "B") return plus + QString::number(v / 1e6, 'f', 2) + " MB";
  if (unit == "samples/s") return plus + QString::number(v, 'f', 1);
  return plus + QString::number(v, 'f', 4);
}

QString describe(const core::RunResult& r) {
  return QString("%1, %2 workers, %3")
      .arg(QString::fromStdString(r.strategy))
      .arg(r.workers)
      .arg(QString::fromStdString(r.engine));
}

QTableWidgetItem* cell(const QString& text, double exact) {
  auto* item = new QTableWidgetItem(text);
  item->setData(Qt::UserRole, exact);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  return item;
}

}  // namespace

CompareDialog::CompareDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle("scaleout: two results side by side");
  auto* layout = new QVBoxLayout(this);
  names_ = new QLabel;
  names_->setTextFormat(Qt::RichText);
  layout->addWidget(names_);
  table_ = new QTableWidget(0, 4);
  table_->setHorizontalHeaderLabels({"A", "B", "B - A", "B / A"});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->setFocusPolicy(Qt::NoFocus);  // no focus frame on a cell of a read-only table
  table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);  // no empty rows below
  layout->addWidget(table_);
  setMinimumWidth(720);
}

void CompareDialog::show_pair(const core::RunResult& a, const QString& a_name,
                              const core::RunResult& b, const QString& b_name) {
  rows_ = side_by_side(a, b);
  names_->setText(QString("<b>A</b>: %1 (%2)<br><b>B</b>: %3 (%4)")
                      .arg(a_name.toHtmlEscaped(), describe(a).toHtmlEscaped(),
                           b_name.toHtmlEscaped(), describe(b).toHtmlEscaped()));
  table_->setRowCount(static_cast<int>(rows_.size()));
  QStringList labels;
  for (int i = 0; i < static_cast<int>(rows_.size()); ++i) {
    const SideBySideRow& r = rows_[i];
    labels << QString::fromStdString(r.label);
    table_->setItem(i, 0, cell(format_value(r.a, r.unit, false), r.a));
    table_->setItem(i, 1, cell(format_value(r.b, r.unit, false), r.b));
    table_->setItem(i, 2, cell(format_value(r.difference, r.unit, true), r.difference));
    QString ratio = std::isnan(r.ratio) ? QString("n/a (A is 0)")
                                        : QString::number(r.ratio, 'f', 4) + QChar(0x00d7);
    table_->setItem(i, 3, cell(ratio, r.ratio));
  }
  table_->setVerticalHeaderLabels(labels);
  adjustSize();
}

}  // namespace scaleout::gui
