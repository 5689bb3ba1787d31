#include "gui/result_files.hpp"

#include <QDir>
#include <QFileInfo>

#include "core/plan/input_error.hpp"

namespace scaleout::gui {

namespace {

// The error without the path it starts with: the status line names the file once.
QString reason(const core::InputError& e, const QString& path) {
  QString text = QString::fromStdString(e.what());
  if (text.startsWith(path)) text = text.mid(path.size());
  while (text.startsWith(':') || text.startsWith(' ')) text = text.mid(1);
  return text;
}

}  // namespace

OpenedResults load_results(const QStringList& paths, const core::Plan& plan) {
  OpenedResults out;
  for (const QString& path : paths) {
    try {
      out.points.push_back(load_measured(path.toStdString(), plan));
    } catch (const core::InputError& e) {
      out.skipped << QString("%1 (%2)").arg(QFileInfo(path).fileName(), reason(e, path));
    }
  }
  return out;
}

QStringList json_files_in(const QString& dir) {
  QStringList out;
  QDir d(dir);
  for (const QString& name : d.entryList({"*.json"}, QDir::Files | QDir::Readable, QDir::Name))
    out << d.filePath(name);
  return out;
}

QString describe(const OpenedResults& opened) {
  QString text = QString("opened %1 result%2")
                     .arg(opened.points.size())
                     .arg(opened.points.size() == 1 ? "" : "s");
  if (!opened.skipped.isEmpty())
    text += QString("; skipped %1: %2").arg(opened.skipped.size()).arg(opened.skipped.join("; "));
  return text;
}

}  // namespace scaleout::gui
