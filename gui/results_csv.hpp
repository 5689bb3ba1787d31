// The results table as CSV: a header of the columns' machine names, then one row per result in
// the model's order (a sorted view's order when given the view's model), numbers with every digit
// a double holds (17 significant). Written with QSaveFile: an existing file stays whole on error.
#pragma once

#include <QAbstractItemModel>
#include <QString>

namespace scaleout::gui {

// Writes `model` (a ResultsTableModel or a proxy over one) to `path`; returns "wrote N results to
// PATH", or the reason it could not, naming the path.
QString write_results_csv(const QAbstractItemModel& model, const QString& path);

// One CSV field: quoted when it holds a comma, a quote or a line break.
QString csv_field(const QVariant& value);

}  // namespace scaleout::gui
