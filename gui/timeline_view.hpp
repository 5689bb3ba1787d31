// A Chrome trace drawn as a timeline (data in timeline_data.hpp): one row per rank, or per run of
// ranks when there are more than fit; each row has a compute lane (forward light, backward dark)
// over a communication lane, shaded by how busy the row's ranks were. Wheel zooms around the
// cursor, dragging pans, a double click shows the whole run; hover tells what runs there.
#pragma once

#include <QWidget>
#include <vector>

#include "gui/timeline_data.hpp"

namespace scaleout::gui {

class TimelineView : public QWidget {
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  void set_trace(TimelineTrace trace);
  const TimelineTrace& trace() const { return trace_; }
  // The time window shown, in seconds of the trace.
  void set_window(double t0, double t1);
  double window_start() const { return t0_; }
  double window_end() const { return t1_; }
  void show_all() { set_window(trace_.start, trace_.end); }
  // The rows as the current height lays them out.
  std::vector<TimelineRow> rows() const;
  // What a hover at `pos` says (empty outside the rows).
  QString tip_at(QPoint pos) const;

  static QColor phase_color(Phase phase);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRect plot_rect() const;
  double time_at(int x) const;
  void paint_axis(QPainter& p, const QRect& plot) const;
  void paint_row(QPainter& p, const TimelineRow& row, const QRect& lane_area) const;

  TimelineTrace trace_;
  bool has_weight_passes_ = false;  // a zero-bubble schedule's: the legend names them
  double t0_ = 0, t1_ = 1;
  int drag_x_ = -1;
  double drag_t0_ = 0;
};

}  // namespace scaleout::gui
