#include "gui/results_csv.hpp"

#include <QSaveFile>

#include "gui/results_table.hpp"

namespace scaleout::gui {

QString csv_field(const QVariant& value) {
  if (value.typeId() == QMetaType::Double) return QString::number(value.toDouble(), 'g', 17);
  QString text = value.toString();
  if (text.contains(',') || text.contains('"') || text.contains('\n') || text.contains('\r'))
    return QString("\"%1\"").arg(text.replace('"', "\"\""));
  return text;
}

QString write_results_csv(const QAbstractItemModel& model, const QString& path) {
  constexpr int role = ResultsTableModel::kValueRole;
  QStringList lines;
  QStringList header;
  for (int c = 0; c < model.columnCount(); ++c)
    header << csv_field(model.headerData(c, Qt::Horizontal, role));
  lines << header.join(',');
  for (int r = 0; r < model.rowCount(); ++r) {
    QStringList fields;
    for (int c = 0; c < model.columnCount(); ++c)
      fields << csv_field(model.data(model.index(r, c), role));
    lines << fields.join(',');
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
    return QString("could not write %1: %2").arg(path, file.errorString());
  file.write((lines.join('\n') + '\n').toUtf8());
  if (!file.commit()) return QString("could not write %1: %2").arg(path, file.errorString());
  return QString("wrote %1 result%2 to %3")
      .arg(model.rowCount())
      .arg(model.rowCount() == 1 ? "" : "s")
      .arg(path);
}

}  // namespace scaleout::gui
