#include "gui/split_table.hpp"

#include <QHeaderView>

namespace scaleout::gui {

namespace {

const QStringList kColumns = {"#",         "tp",   "pp",          "dp",        "mb", "schedule",
                              "recompute", "zero", "sp",          "ep",        "cp", "step (s)",
                              "tokens/s",  "MFU",  "memory (GB)", "bottleneck"};

QTableWidgetItem* cell(const QString& text, bool number = true) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(item->flags() & ~Qt::ItemIsEditable);
  if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

// One split's cells, in kColumns' order after "#".
QStringList split_cells(const sim::SplitCandidate& c) {
  const core::ModelParallelOutcome& m = *c.result.model_parallel;
  QString schedule = QString::fromStdString(m.schedule);
  if (m.virtual_stages > 1) schedule += QString(" v%1").arg(m.virtual_stages);
  return {QString::number(m.tensor),
          QString::number(m.pipeline),
          QString::number(m.data),
          QString::number(m.microbatch),
          schedule,
          QString::fromStdString(m.recompute),
          QString::number(m.zero),
          m.sequence_parallel ? "yes" : "no",
          QString::number(m.expert),
          QString::number(m.context),
          QString::number(c.result.step_time_s, 'f', 3),
          QString::number(m.tokens_per_s, 'f', 0),
          QString::number(100 * m.mfu, 'f', 1) + "%",
          QString("%1 / %2")
              .arg(m.memory.total / 1e9, 0, 'f', 1)
              .arg(m.memory.capacity / 1e9, 0, 'f', 1),
          QString::fromStdString(c.bottleneck)};
}

}  // namespace

SplitTable::SplitTable(QWidget* parent) : QTableWidget(parent) {
  setColumnCount(static_cast<int>(kColumns.size()));
  setHorizontalHeaderLabels(kColumns);
  verticalHeader()->hide();
  horizontalHeader()->setStretchLastSection(true);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setToolTip("double-click a split to load it into the plan");
  connect(this, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { pick(row); });
}

void SplitTable::show_splits(std::vector<sim::SplitCandidate> top, int workers) {
  splits_ = std::move(top);
  setRowCount(static_cast<int>(splits_.size()));
  int rank = 0;
  for (int r = 0; r < rowCount(); ++r) {
    bool tie = r > 0 && sim::same_step(splits_[r].result, splits_[r - 1].result);
    setItem(r, 0, cell(QString("%1%2").arg(++rank).arg(tie ? "=" : "")));
    QStringList cells = split_cells(splits_[r]);
    for (int c = 0; c < cells.size(); ++c)
      setItem(r, c + 1, cell(cells[c], c != 4 && c != 5 && c != 7 && c != cells.size() - 1));
  }
  resizeColumnsToContents();
  setToolTip(QString("the search's best splits at %1 workers (= : the same step as the row "
                     "above); double-click one to load it into the plan")
                 .arg(workers));
}

void SplitTable::pick(int row) {
  if (row < 0 || row >= static_cast<int>(splits_.size()) || !on_pick_) return;
  core::Parallelism chosen = *splits_[row].plan.parallelism;  // the pick may refill the table
  on_pick_(chosen);
}

}  // namespace scaleout::gui
