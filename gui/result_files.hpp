// Opening many result files at once (a multi-selection or a folder): every file that is a result
// and runs on the plan becomes a measured point; the others are skipped with their reason, for
// one status-bar line instead of a dialog per file.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

#include "core/plan/plan.hpp"
#include "gui/measured.hpp"

namespace scaleout::gui {

struct OpenedResults {
  std::vector<MeasuredPoint> points;
  QStringList skipped;  // "name.json (why)", one per file left out
};

// load_measured for each path, in order.
OpenedResults load_results(const QStringList& paths, const core::Plan& plan);

// The *.json files directly in `dir` (not its subfolders), by name.
QStringList json_files_in(const QString& dir);

// "opened 3 results; skipped 1: notes.json (not a result JSON: ...)".
QString describe(const OpenedResults& opened);

}  // namespace scaleout::gui
