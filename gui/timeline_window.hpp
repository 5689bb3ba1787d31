// A trace file in its own window: the built-in timeline, "Show all", and "Open in Perfetto",
// which writes the trace where Perfetto's "Open trace file" can pick it up and says where.
#pragma once

#include <QString>
#include <QWidget>

class QLabel;

namespace scaleout::gui {

class TimelineView;

class TimelineWindow : public QWidget {
 public:
  explicit TimelineWindow(QWidget* parent = nullptr);
  // Reads a Chrome trace; on error keeps what was shown and returns the message.
  QString open(const QString& path);
  // Writes the trace under `dir` (empty: the system's temporary folder) and returns what it says.
  QString open_in_perfetto(const QString& dir = {});
  // Writes the timeline as shown (rows, lanes, axis, labels) as SVG; returns what happened.
  QString export_svg(const QString& path);
  TimelineView* view() const { return view_; }
  QLabel* message() const { return message_; }

 private:
  TimelineView* view_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* message_ = nullptr;
  QString path_;
  QByteArray text_;  // the trace as read
};

}  // namespace scaleout::gui
