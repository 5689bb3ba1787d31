// Stacked bar charts on Qt Charts, with the exact value of a bar part on hover.
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLineSeries>
#include <QPen>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>

#include "gui/chart.hpp"
#include "gui/qt_chart_view.hpp"

namespace scaleout::gui {

namespace {

class QtBarChart : public QtChart<BarChart> {
 public:
  explicit QtBarChart(QWidget* parent) : QtChart<BarChart>(parent) {}
  const BarChartData& data() const override { return data_; }
  void show_data(const BarChartData& d) override;

 private:
  BarChartData data_;
};

// The limit as a dashed line across the bars, on a hidden value axis of its own (a line series
// on the category axis would add labels to it).
void add_limit(QChart* c, const BarChartData& d, QAbstractAxis* y) {
  auto* x = new QValueAxis;
  x->setRange(-0.5, static_cast<double>(d.categories.size()) - 0.5);
  x->setVisible(false);
  x->setLabelsVisible(false);
  x->setGridLineVisible(false);
  x->setLineVisible(false);
  c->addAxis(x, Qt::AlignBottom);
  auto* line = new QLineSeries;
  line->setName(d.limit_name);
  line->append(-0.5, d.limit);
  line->append(static_cast<double>(d.categories.size()) - 0.5, d.limit);
  QPen pen(QColor("#c62828"));
  pen.setStyle(Qt::DashLine);
  pen.setWidth(2);
  line->setPen(pen);
  c->addSeries(line);
  line->attachAxis(x);
  line->attachAxis(y);
}

// Categories "0", "1", ... (pipeline stages) go on a number axis whose labels thin out as the bars
// narrow (gui/chart_fit.hpp): a category axis would cut every label once they no longer fit.
bool numbered(const QStringList& categories) {
  for (int i = 0; i < categories.size(); ++i)
    if (categories[i] != QString::number(i)) return false;
  return categories.size() > 1;
}

QAbstractAxis* category_axis(const BarChartData& d) {
  if (!numbered(d.categories)) {
    auto* x = new QBarCategoryAxis;
    x->append(d.categories);
    x->setTitleText(d.x_title);
    return x;
  }
  auto* x = new QValueAxis;
  x->setObjectName(kNumberedBarsAxis);
  x->setRange(-0.5, static_cast<double>(d.categories.size()) - 0.5);
  x->setTickType(QValueAxis::TicksDynamic);
  x->setTickAnchor(0);
  x->setTickInterval(1);
  x->setLabelFormat("%.0f");
  x->setGridLineVisible(false);
  x->setTitleText(d.x_title);
  return x;
}

void QtBarChart::show_data(const BarChartData& d) {
  data_ = d;
  reset_chart(d.title, d.subtitle);
  QChart* c = chart();
  auto* series = new QStackedBarSeries;
  QList<double> totals(d.categories.size(), 0.0);
  for (const auto& s : d.stacks) {
    auto* set = new QBarSet(s.name);
    set->setColor(series_color(s.name));
    set->setBorderColor(series_color(s.name));
    for (int i = 0; i < s.points.size(); ++i) {
      *set << s.points[i].y();
      if (i < totals.size()) totals[i] += s.points[i].y();
    }
    QObject::connect(set, &QBarSet::hovered, this, [s](bool on, int i) {
      if (!on || i >= s.tips.size()) return QToolTip::hideText();
      QToolTip::showText(QCursor::pos(), s.tips[i]);
    });
    series->append(set);
  }
  series->setBarWidth(0.6);
  c->addSeries(series);
  QAbstractAxis* x = category_axis(d);
  auto* y = new QValueAxis;
  double top = d.limit;
  for (double t : totals) top = std::max(top, t);
  y->setRange(0, top > 0 ? top * 1.1 : 1);
  y->applyNiceNumbers();
  y->setLabelFormat("%g");
  y->setTitleText(d.y_title);
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  if (d.limit > 0) add_limit(c, d, y);
  fit_words();
}

}  // namespace

BarChart* make_bar_chart(QWidget* parent) { return new QtBarChart(parent); }

}  // namespace scaleout::gui
