// Line charts on Qt Charts: curves, measured dots and labelled markers, hover tooltips.
// OpenGL series are never enabled: they crash on the offscreen platform.
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <cmath>

#include "gui/chart.hpp"
#include "gui/qt_chart_view.hpp"

namespace scaleout::gui {

namespace {

QString tip_for(const SeriesData& s, int i) {
  if (i < s.tips.size()) return s.tips[i];
  return QString("%1: %2, %3").arg(s.name).arg(s.points[i].x()).arg(s.points[i].y());
}

// The data point of `s` nearest to `p` (on a log2 x axis when `log_x`).
int nearest(const SeriesData& s, QPointF p, bool log_x) {
  int best = -1;
  double best_d = 0;
  for (int i = 0; i < s.points.size(); ++i) {
    double dx = log_x ? std::log2(s.points[i].x()) - std::log2(std::max(p.x(), 1e-12))
                      : s.points[i].x() - p.x();
    double d = std::abs(dx);
    if (best < 0 || d < best_d) best = i, best_d = d;
  }
  return best;
}

// The x axis (log2 or linear) and the y axis (log10 or linear from 0) that fit every point.
std::pair<QAbstractAxis*, QAbstractAxis*> make_axes(const LineChartData& d) {
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = 0;
  for (const auto* group : {&d.lines, &d.measured, &d.refined})
    for (const auto& s : *group)
      for (const auto& p : s.points) {
        xmin = std::min(xmin, p.x());
        xmax = std::max(xmax, p.x());
        ymin = std::min(ymin, p.y());
        ymax = std::max(ymax, p.y());
      }
  if (xmin > xmax) xmin = 1, xmax = 2;
  QAbstractAxis* x = nullptr;
  if (d.log2_x) {
    auto* lx = new QLogValueAxis;
    lx->setBase(2);
    lx->setLabelFormat("%g");
    lx->setMinorTickCount(0);
    lx->setRange(xmin / std::exp2(0.25), xmax * std::exp2(0.25));  // room for end points
    x = lx;
  } else {
    auto* vx = new QValueAxis;
    vx->setRange(xmin, xmax);
    x = vx;
  }
  x->setTitleText(d.x_title);
  QAbstractAxis* y = nullptr;
  if (d.log10_y) {
    auto* ly = new QLogValueAxis;
    ly->setBase(10);
    ly->setMinorTickCount(-1);  // the 2..9 of each decade, as on log paper
    ly->setRange(std::pow(10, std::floor(std::log10(std::max(ymin, 1e-12)))),
                 std::pow(10, std::ceil(std::log10(std::max(ymax, 1e-12)))));
    ly->setLabelFormat(d.y_format);
    y = ly;
  } else {
    auto* vy = new QValueAxis;
    if (d.y_max > 0) {
      vy->setRange(0, d.y_max);
      vy->setTickCount(6);
    } else {
      vy->setRange(0, ymax > 0 ? ymax * 1.1 : 1);
      vy->applyNiceNumbers();
    }
    vy->setLabelFormat(d.y_format);
    y = vy;
  }
  y->setTitleText(d.y_title);
  return {x, y};
}

class QtLineChart : public QtChart<LineChart> {
 public:
  explicit QtLineChart(QWidget* parent) : QtChart<LineChart>(parent) {}
  const LineChartData& data() const override { return data_; }
  void show_data(const LineChartData& d) override;

 private:
  void add_series(QXYSeries* series, const SeriesData& s, QAbstractAxis* x, QAbstractAxis* y) {
    series->setName(s.name);
    series->append(s.points);
    chart()->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
    bool log_x = data_.log2_x;
    QObject::connect(series, &QXYSeries::hovered, this, [s, log_x](const QPointF& p, bool on) {
      int i = on ? nearest(s, p, log_x) : -1;
      if (i < 0) return QToolTip::hideText();
      QToolTip::showText(QCursor::pos(), tip_for(s, i));
    });
  }

  LineChartData data_;
};

void QtLineChart::show_data(const LineChartData& d) {
  data_ = d;
  reset_chart(d.title, d.subtitle);
  QChart* c = chart();
  auto [x, y] = make_axes(d);
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  for (const auto& s : d.lines) {
    auto* line = new QLineSeries;
    line->setPen(QPen(series_color(s.name), 2.5));
    line->setPointsVisible(true);
    add_series(line, s, x, y);
  }
  for (const auto& s : d.measured) {
    auto* dots = new QScatterSeries;
    dots->setMarkerSize(13);
    dots->setColor(series_color(s.name));
    dots->setBorderColor(Qt::black);
    add_series(dots, s, x, y);
    hide_from_legend(c, dots);  // the subtitle says what they are
  }
  for (const auto& s : d.refined) {
    auto* rings = new QScatterSeries;
    rings->setMarkerSize(16);
    rings->setColor(Qt::transparent);
    rings->setBorderColor(Qt::black);
    add_series(rings, s, x, y);
  }
  for (const auto& m : d.markers) {
    auto* mark = new QScatterSeries;
    mark->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    mark->setMarkerSize(9);
    mark->setColor(Qt::black);
    mark->setPointLabelsVisible(true);
    mark->setPointLabelsClipping(false);
    mark->setPointLabelsFormat(m.label);
    add_series(mark, {m.label, {m.at}, {m.tip}}, x, y);
    hide_from_legend(c, mark);
  }
  fit_words();
}

}  // namespace

LineChart* make_line_chart(QWidget* parent) { return new QtLineChart(parent); }

}  // namespace scaleout::gui
