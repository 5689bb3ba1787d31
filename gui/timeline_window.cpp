#include "gui/timeline_window.hpp"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QVBoxLayout>
#include <stdexcept>

#include "gui/svg_export.hpp"
#include "gui/timeline_view.hpp"

namespace scaleout::gui {

TimelineWindow::TimelineWindow(QWidget* parent) : QWidget(parent) {
  setWindowTitle("scaleout: timeline");
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  summary_ = new QLabel;
  bar->addWidget(summary_, 1);
  auto* all = new QPushButton("Show all");
  bar->addWidget(all);
  auto* perfetto = new QPushButton("Open in Perfetto");
  bar->addWidget(perfetto);
  auto* svg = new QPushButton("Export SVG...");
  bar->addWidget(svg);
  layout->addLayout(bar);
  view_ = new TimelineView;
  layout->addWidget(view_, 1);
  message_ = new QLabel("wheel: zoom, drag: pan, double click: whole run; hover for details");
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(message_);
  connect(all, &QPushButton::clicked, this, [this] { view_->show_all(); });
  connect(perfetto, &QPushButton::clicked, this, [this] { open_in_perfetto(); });
  connect(svg, &QPushButton::clicked, this, [this] {
    QString name = QFileInfo(path_).completeBaseName() + ".svg";
    QString path = QFileDialog::getSaveFileName(this, "Export timeline", name, "SVG (*.svg)");
    if (!path.isEmpty()) export_svg(path);
  });
  resize(1200, 720);
}

QString TimelineWindow::open(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return "cannot read " + path;
  QByteArray text = file.readAll();
  try {
    view_->set_trace(read_chrome_trace(text.toStdString()));
  } catch (const std::exception& e) {
    return path + ": " + e.what();
  }
  path_ = path;
  text_ = text;
  const TimelineTrace& t = view_->trace();
  summary_->setText(QString("<b>%1</b>: %2 tracks, %3 ms")
                        .arg(QString::fromStdString(t.process).toHtmlEscaped())
                        .arg(t.tracks.size())
                        .arg((t.end - t.start) * 1e3, 0, 'f', 3));
  setWindowTitle("scaleout: timeline of " + QFileInfo(path).fileName());
  return "timeline of " + path;
}

QString TimelineWindow::open_in_perfetto(const QString& dir) {
  if (text_.isEmpty()) return "no trace open";
  QDir folder(dir.isEmpty() ? QDir::temp().filePath("scaleout-traces") : dir);
  folder.mkpath(".");
  QString out = folder.filePath(QFileInfo(path_).completeBaseName() + ".json");
  QSaveFile file(out);
  if (!file.open(QIODevice::WriteOnly) || file.write(text_) != text_.size() || !file.commit()) {
    message_->setText("could not write " + out);
    return message_->text();
  }
  message_->setText("wrote " + out +
                    ": open https://ui.perfetto.dev, choose \"Open trace file\" and pick it "
                    "(chrome://tracing reads it too)");
  return message_->text();
}

QString TimelineWindow::export_svg(const QString& path) {
  if (text_.isEmpty()) return "no trace open";
  bool ok = save_widget_svg(view_, path);
  message_->setText(ok ? "wrote " + path : "could not write " + path);
  return message_->text();
}

}  // namespace scaleout::gui
