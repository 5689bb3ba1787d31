// A histogram on Qt Charts: one bar per bin, the exact count of a bar on hover, and a line of
// text in the plot when there is nothing to draw.
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QGraphicsTextItem>
#include <QToolTip>
#include <QValueAxis>

#include "gui/chart.hpp"
#include "gui/qt_chart_view.hpp"

namespace scaleout::gui {

namespace {

class QtHistogramChart : public QtChart<HistogramChart> {
 public:
  explicit QtHistogramChart(QWidget* parent) : QtChart<HistogramChart>(parent) {
    note_ = new QGraphicsTextItem(chart());
    chart()->legend()->hide();
  }
  const HistogramData& data() const override { return data_; }
  void show_data(const HistogramData& d) override;

 protected:
  void resizeEvent(QResizeEvent* event) override {
    QtChart<HistogramChart>::resizeEvent(event);
    place_note();
  }

 private:
  void place_note();

  HistogramData data_;
  QGraphicsTextItem* note_ = nullptr;  // wraps in the plot area
};

void QtHistogramChart::place_note() {
  QRectF area = chart()->plotArea();
  note_->setTextWidth(std::max(80.0, area.width() - 16));
  note_->setPos(area.left() + 8, area.top() + 8);
}

void QtHistogramChart::show_data(const HistogramData& d) {
  data_ = d;
  reset_chart(d.title, d.subtitle);
  QChart* c = chart();
  note_->setPlainText(d.empty_text);
  note_->setVisible(!d.empty_text.isEmpty());
  auto* set = new QBarSet(d.y_title);
  set->setColor(series_color("ps"));
  set->setBorderColor(series_color("ps").darker(130));
  double top = 0;
  for (double v : d.counts) {
    *set << v;
    top = std::max(top, v);
  }
  QStringList tips = d.tips;
  QObject::connect(set, &QBarSet::hovered, this, [tips](bool on, int i) {
    if (!on || i >= tips.size()) return QToolTip::hideText();
    QToolTip::showText(QCursor::pos(), tips[i]);
  });
  auto* series = new QBarSeries;
  series->append(set);
  series->setBarWidth(0.9);
  c->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(d.bins.isEmpty() ? QStringList{" "} : d.bins);
  x->setTitleText(d.x_title);
  auto* y = new QValueAxis;
  y->setRange(0, top > 0 ? top * 1.1 : 1);
  y->applyNiceNumbers();
  y->setLabelFormat("%g");
  y->setTitleText(d.y_title);
  y->setGridLineVisible(!d.counts.isEmpty());  // nothing to read off: keep the note clear
  x->setGridLineVisible(!d.counts.isEmpty());
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  place_note();
  fit_words();
}

}  // namespace

HistogramChart* make_histogram_chart(QWidget* parent) { return new QtHistogramChart(parent); }

}  // namespace scaleout::gui
