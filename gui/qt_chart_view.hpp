// What the Qt Charts implementations of our chart interface share: the view's look (antialiased,
// legend below, small margins), words kept whole at any width (gui/chart_fit.hpp) and grabbing it
// as an image, also when it is not on screen.
#pragma once

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QImage>
#include <QPainter>
#include <QResizeEvent>
#include <QSize>

#include "gui/chart.hpp"
#include "gui/chart_fit.hpp"

namespace scaleout::gui {

class QtChartView : public QChartView {
 public:
  explicit QtChartView(QWidget* parent) : QChartView(new QChart, parent) {
    setRenderHint(QPainter::Antialiasing);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    chart()->setMargins(QMargins(6, 6, 12, 6));
    setMinimumSize(320, 240);
    // Labels turn upright once the plot is laid out too narrow for them side by side.
    QObject::connect(chart(), &QChart::plotAreaChanged, this,
                     [this] { fit_category_labels(chart()); });
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
    title_ = title;
    subtitle_ = subtitle;
    fit_words();
  }
  // Wraps the title and places the legend for the view's width (gui/chart_fit.hpp); the chart
  // kinds call it again once their series are in. The view's own width, not the chart's: a view
  // not shown has its size before its chart does. The title keeps 40 pixels of its layout's own
  // margins free.
  void fit_words() {
    QChart* c = chart();
    qreal room = width() - c->margins().left() - c->margins().right();
    c->setTitle(wrapped_title(title_, subtitle_, c->titleFont(), room - 40));
    fit_legend(c, room);
  }
  // The view as `size` pixels; a view not shown is laid out at that size first.
  QImage grab_image(QSize size) {
    if (!isVisible()) resize(size);
    fit_words();
    settle();
    return grab().toImage();
  }
  // Draws the view on `painter` (a vector device keeps lines and text as such) at `size`.
  void draw(QPainter& painter, QSize size) {
    if (!isVisible()) resize(size);
    fit_words();
    settle();
    render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), rect());
  }

 protected:
  // Lays the chart out now: a view not shown is grabbed before its layout would run.
  void settle() {
    if (chart()->layout()) chart()->layout()->activate();
  }
  void resizeEvent(QResizeEvent* event) override {
    QChartView::resizeEvent(event);
    fit_words();
    if (!isVisible()) settle();  // a page grabbed off screen paints before its layout would run
  }

 private:
  QString title_, subtitle_;
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
