// Our own small chart interface: panels describe what to draw as plain data and never touch the
// charting library, so Qt Charts (Qt 6.4) can give way to Qt Graphs without touching them.
#pragma once

#include <QColor>
#include <QImage>
#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>

class QPainter;
class QWidget;

namespace scaleout::gui {

struct SeriesData {
  QString name;
  QList<QPointF> points;
  QStringList tips;  // one hover text per point; empty: "name: x, y"
};

struct MarkerData {
  QPointF at;
  QString label;  // short, drawn beside the point ("1"); the subtitle says what it means
  QString tip;    // shown on hover
};

struct LineChartData {
  QString title, subtitle, x_title, y_title;
  QString y_format = "%g";  // printf format of the y axis labels
  double y_max = 0;         // top of a linear y axis; 0: from the data
  bool log2_x = true;
  bool log10_y = false;
  QList<SeriesData> lines;     // curves
  QList<SeriesData> measured;  // points drawn as large dots
  QList<SeriesData> refined;   // points ringed (simulated rather than closed-form)
  QList<MarkerData> markers;   // labelled points (crossovers)
};

struct BarChartData {
  QString title, subtitle, x_title, y_title;
  QStringList categories;
  QList<SeriesData> stacks;  // one per stacked part; points[i].y() is category i's value
  double limit = 0;          // a horizontal line across the bars (a capacity); 0: none
  QString limit_name;
};

// Bars of one series over numbered bins (the staleness histogram).
struct HistogramData {
  QString title, subtitle, x_title, y_title;
  QStringList bins;      // one label per bar
  QList<double> counts;  // one value per bar
  QStringList tips;      // one hover text per bar
  QString empty_text;    // said instead when there are no bars
};

// A chart widget. Instances are QWidgets owned by their Qt parent.
class Chart {
 public:
  virtual ~Chart() = default;
  virtual QWidget* widget() = 0;
  // The chart as it would look at `size`, drawn offscreen.
  virtual QImage image(QSize size) = 0;
  // The chart drawn on `painter` at `size` (vector devices keep lines and text).
  virtual void paint(QPainter& painter, QSize size) = 0;
  // Writes image(size) as PNG, or the drawing as SVG when `path` ends in .svg; the file appears
  // whole or not at all. Returns false when it cannot be written.
  bool save(const QString& path, QSize size);
};

class LineChart : public Chart {
 public:
  virtual void show_data(const LineChartData& data) = 0;
  virtual const LineChartData& data() const = 0;
};

class BarChart : public Chart {
 public:
  virtual void show_data(const BarChartData& data) = 0;
  virtual const BarChartData& data() const = 0;
};

class HistogramChart : public Chart {
 public:
  virtual void show_data(const HistogramData& data) = 0;
  virtual const HistogramData& data() const = 0;
};

// One colour per strategy name (the part before a space), the same in every chart.
QColor series_color(const QString& name);

// Qt Charts implementations, owned by `parent` (may be null: then by the caller).
LineChart* make_line_chart(QWidget* parent);
BarChart* make_bar_chart(QWidget* parent);
HistogramChart* make_histogram_chart(QWidget* parent);

}  // namespace scaleout::gui
