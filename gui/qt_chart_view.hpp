// What the Qt Charts implementations of our chart interface share: the view's look (antialiased,
// legend below, small margins) and grabbing it as an image, also when it is not on screen.
#pragma once

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QImage>
#include <QPainter>
#include <QSize>

#include "gui/chart.hpp"

namespace scaleout::gui {

class QtChartView : public QChartView {
 public:
  explicit QtChartView(QWidget* parent) : QChartView(new QChart, parent) {
    setRenderHint(QPainter::Antialiasing);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    chart()->setMargins(QMargins(6, 6, 12, 6));
    setMinimumSize(320, 240);
  }
  // Empties the chart (series and axes) and sets its title, with a smaller subtitle line when
  // `subtitle` is not empty: every chart kind starts showing new data here.
  void reset_chart(const QString& title, const QString& subtitle = QString()) {
    QChart* c = chart();
    c->removeAllSeries();
    for (QAbstractAxis* a : c->axes()) {
      c->removeAxis(a);
      delete a;
    }
    c->setTitle("<b>" + title + "</b>" +
                (subtitle.isEmpty() ? QString() : "<br><small>" + subtitle + "</small>"));
  }
  // The view as `size` pixels; a view not shown is laid out at that size first.
  QImage grab_image(QSize size) {
    if (!isVisible()) resize(size);
    return grab().toImage();
  }
  // Draws the view on `painter` (a vector device keeps lines and text as such) at `size`.
  void draw(QPainter& painter, QSize size) {
    if (!isVisible()) resize(size);
    render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), rect());
  }
};

// One of our chart kinds (LineChart, BarChart) drawn by a QtChartView: the widget, grabbing and
// painting are the view's.
template <typename Kind>
class QtChart : public QtChartView, public Kind {
 public:
  explicit QtChart(QWidget* parent) : QtChartView(parent) {}
  QWidget* widget() override { return this; }
  QImage image(QSize size) override { return grab_image(size); }
  void paint(QPainter& painter, QSize size) override { draw(painter, size); }
};

}  // namespace scaleout::gui
