#include "gui/timeline_view.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace scaleout::gui {

namespace {

constexpr int kGutter = 190, kAxis = 24, kLegend = 22, kMinRowHeight = 14, kMaxRowHeight = 40;
constexpr int kShades = 12;

QColor shade(QColor c, float busy) {
  float f = std::clamp(busy, 0.0f, 1.0f);
  return QColor::fromRgbF(1 - f * (1 - c.redF()), 1 - f * (1 - c.greenF()),
                          1 - f * (1 - c.blueF()));
}

// One phase's busy share per column, drawn in its colour.
struct Lane {
  const std::vector<float>* bins;
  QColor color;
};

// Fills one lane of a row: each column shaded by the phases' busy share together, in the colour
// of the busiest; equal neighbours as one rect.
void fill_lane(QPainter& p, const std::vector<Lane>& phases, int x0, int y, int h) {
  int n = static_cast<int>(phases.front().bins->size());
  int start = 0, run_level = -1;
  std::size_t run_phase = 0;
  auto flush = [&](int end) {
    if (run_level > 0)
      p.fillRect(x0 + start, y, end - start, h,
                 shade(phases[run_phase].color, static_cast<float>(run_level) / kShades));
  };
  for (int i = 0; i < n; ++i) {
    float busy = 0;
    std::size_t busiest = 0;
    for (std::size_t k = 0; k < phases.size(); ++k) {
      busy += (*phases[k].bins)[i];
      if ((*phases[k].bins)[i] > (*phases[busiest].bins)[i]) busiest = k;
    }
    int level = static_cast<int>(std::lround(std::min(1.0f, busy) * kShades));
    if (level != run_level || (level > 0 && busiest != run_phase)) {
      flush(i);
      start = i;
      run_level = level;
      run_phase = busiest;
    }
  }
  flush(n);
}

// A round step (1, 2 or 5 times a power of ten) that puts ticks at least `min_gap` seconds apart.
double tick_step(double min_gap) {
  double p = std::pow(10.0, std::floor(std::log10(min_gap)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= min_gap) return m * p;
  return 10 * p;
}

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setMinimumSize(600, 300);
  setMouseTracking(true);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

QColor TimelineView::phase_color(Phase phase) {
  switch (phase) {
    case Phase::kForward:
      return QColor(0x8f, 0xb8, 0xe0);
    case Phase::kCompute:
      return QColor(0x2f, 0x5f, 0xa0);
    case Phase::kWeight:
      return QColor(0x3a, 0x9a, 0x6e);
    case Phase::kComm:
      break;
  }
  return QColor(0xe0, 0x7b, 0x20);
}

void TimelineView::set_trace(TimelineTrace trace) {
  trace_ = std::move(trace);
  has_weight_passes_ = false;
  for (const TimelineTrack& track : trace_.tracks)
    for (const TimelineSpan& span : track.spans) has_weight_passes_ |= span.phase == Phase::kWeight;
  show_all();
}

void TimelineView::set_window(double t0, double t1) {
  double span = std::max(t1 - t0, 1e-9);
  t0_ = t0;
  t1_ = t0 + span;
  update();
}

QRect TimelineView::plot_rect() const {
  return QRect(kGutter, kAxis, std::max(1, width() - kGutter - 8),
               std::max(1, height() - kAxis - kLegend));
}

std::vector<TimelineRow> TimelineView::rows() const {
  return timeline_rows(trace_, plot_rect().height() / kMinRowHeight);
}

double TimelineView::time_at(int x) const {
  QRect plot = plot_rect();
  return t0_ + (x - plot.left()) * (t1_ - t0_) / plot.width();
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  if (trace_.tracks.empty()) return;
  QRect plot = plot_rect();
  auto all = rows();
  double row_h = std::min<double>(
      kMaxRowHeight, static_cast<double>(plot.height()) / std::max<std::size_t>(1, all.size()));
  QFont small = font();
  small.setPointSizeF(std::clamp(row_h * 0.45, 6.0, 9.0));
  p.setFont(small);
  for (std::size_t r = 0; r < all.size(); ++r) {
    int top = plot.top() + static_cast<int>(std::lround(r * row_h));
    int bottom = plot.top() + static_cast<int>(std::lround((r + 1) * row_h));
    QRect area(plot.left(), top, plot.width(), std::max(2, bottom - top - 1));
    paint_row(p, all[r], area);
    p.setPen(Qt::black);
    p.drawText(QRect(4, top, kGutter - 8, bottom - top), Qt::AlignVCenter | Qt::AlignRight,
               QString::fromStdString(all[r].label));
  }
  paint_axis(p, plot);
}

void TimelineView::paint_row(QPainter& p, const TimelineRow& row, const QRect& area) const {
  RowBins bins;
  bin_row(trace_, row, t0_, t1_, area.width(), bins);
  int half = area.height() / 2;
  fill_lane(p,
            {{&bins.forward, phase_color(Phase::kForward)},
             {&bins.compute, phase_color(Phase::kCompute)},
             {&bins.weight, phase_color(Phase::kWeight)}},
            area.left(), area.top(), std::max(1, half));
  fill_lane(p, {{&bins.comm, phase_color(Phase::kComm)}}, area.left(), area.top() + half,
            std::max(1, area.height() - half));
}

void TimelineView::paint_axis(QPainter& p, const QRect& plot) const {
  QFont f = font();
  f.setPointSizeF(8);
  p.setFont(f);
  p.setPen(QColor(90, 90, 90));
  p.drawLine(plot.left(), plot.top() - 1, plot.right(), plot.top() - 1);
  double step = tick_step((t1_ - t0_) * 90 / plot.width());
  bool ms = step < 1;
  for (double t = std::ceil(t0_ / step) * step; t <= t1_; t += step) {
    int x = plot.left() + static_cast<int>((t - t0_) / (t1_ - t0_) * plot.width());
    p.drawLine(x, plot.top() - 5, x, plot.top() - 1);
    p.drawText(x + 2, plot.top() - 8,
               ms ? QString("%1 ms").arg(t * 1e3, 0, 'g', 6) : QString("%1 s").arg(t, 0, 'g', 6));
  }
  int y = height() - kLegend + 4, x = kGutter;
  for (auto [phase, name] :
       {std::pair{Phase::kForward, "forward"}, std::pair{Phase::kCompute, "backward / compute"},
        std::pair{Phase::kWeight, "weight gradients"},
        std::pair{Phase::kComm, "communication (lower lane)"}}) {
    if (phase == Phase::kWeight && !has_weight_passes_) continue;
    p.fillRect(x, y + 2, 12, 10, phase_color(phase));
    p.drawText(x + 16, y + 11, name);
    x += 30 + p.fontMetrics().horizontalAdvance(name);
  }
  p.drawText(x, y + 11, "shade: share of the row's ranks busy");
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  double at = time_at(static_cast<int>(event->position().x()));
  double factor = event->angleDelta().y() > 0 ? 0.8 : 1.25;
  set_window(at - (at - t0_) * factor, at + (t1_ - at) * factor);
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  drag_x_ = static_cast<int>(event->position().x());
  drag_t0_ = t0_;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (!(event->buttons() & Qt::LeftButton) || drag_x_ < 0) return;
  double shift = (event->position().x() - drag_x_) * (t1_ - t0_) / plot_rect().width();
  set_window(drag_t0_ - shift, drag_t0_ - shift + (t1_ - t0_));
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) { show_all(); }

QString TimelineView::tip_at(QPoint pos) const {
  QRect plot = plot_rect();
  if (!plot.contains(pos) || trace_.tracks.empty()) return {};
  auto all = rows();
  double row_h = std::min<double>(
      kMaxRowHeight, static_cast<double>(plot.height()) / std::max<std::size_t>(1, all.size()));
  int r = static_cast<int>((pos.y() - plot.top()) / row_h);
  if (r < 0 || r >= static_cast<int>(all.size())) return {};
  const TimelineRow& row = all[r];
  double t = time_at(pos.x()), per_px = (t1_ - t0_) / plot.width();
  QString text =
      QString("%1 at %2 ms").arg(QString::fromStdString(row.label)).arg(t * 1e3, 0, 'f', 3);
  if (row.first == row.last) {
    const TimelineSpan* s = span_at(trace_.tracks[row.first], t);
    if (s)
      text += QString("\n%1: %2 .. %3 ms")
                  .arg(QString::fromStdString(trace_.names[s->name]))
                  .arg(s->start * 1e3, 0, 'f', 3)
                  .arg(s->end * 1e3, 0, 'f', 3);
    return text;
  }
  RowBins bins;
  bin_row(trace_, row, t, t + per_px, 1, bins);
  QString busy = QString("\nbusy: forward %1 %, backward/compute %2 %")
                     .arg(bins.forward[0] * 100, 0, 'f', 0)
                     .arg(bins.compute[0] * 100, 0, 'f', 0);
  if (has_weight_passes_) busy += QString(", weight %1 %").arg(bins.weight[0] * 100, 0, 'f', 0);
  return text + busy + QString(", communication %1 %").arg(bins.comm[0] * 100, 0, 'f', 0);
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    QString tip = tip_at(help->pos());
    if (tip.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), tip, this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace scaleout::gui
