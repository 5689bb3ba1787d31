// Keeping a chart's words whole when its view is narrow (gui/chart_fit.hpp).
#include "gui/chart_fit.hpp"

#include <QAbstractSeries>
#include <QBarCategoryAxis>
#include <QChart>
#include <QFontMetricsF>
#include <QLegend>
#include <QLegendMarker>
#include <QValueAxis>
#include <algorithm>

namespace scaleout::gui {

QStringList wrap_words(const QString& text, const QFont& font, qreal width) {
  if (width < 100) return {text};  // not laid out yet: wrapped again once it is
  QFontMetricsF metrics(font);
  QStringList lines;
  QString line;
  for (const QString& word : text.split(' ', Qt::SkipEmptyParts)) {
    QString longer = line.isEmpty() ? word : line + ' ' + word;
    if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
      lines << line;
      line = word;
    } else {
      line = longer;
    }
  }
  if (!line.isEmpty()) lines << line;
  return lines;
}

QString wrapped_title(const QString& title, const QString& subtitle, const QFont& font,
                      qreal width) {
  QFont bold = font;
  bold.setBold(true);
  QFont small = font;
  small.setPointSizeF(font.pointSizeF() * 0.83);  // rich text's <small>
  QString out = "<b>" + wrap_words(title, bold, width).join("<br>") + "</b>";
  if (!subtitle.isEmpty())
    out += "<br><small>" + wrap_words(subtitle, small, width).join("<br>") + "</small>";
  return out;
}

namespace {

constexpr const char* kNoLegend = "no-legend";

// The width a legend needs to list its markers in one row: each marker's label, its colour
// square and the gaps Qt Charts leaves around them.
qreal legend_row_width(const QLegend* legend) {
  QFontMetricsF metrics(legend->font());
  qreal gaps = metrics.height() + 4 * metrics.averageCharWidth();
  qreal width = 0;
  // A marker's own visibility is false until the chart is first shown: its series says.
  for (QLegendMarker* marker : legend->markers())
    if (!marker->series()->property(kNoLegend).toBool())
      width += metrics.horizontalAdvance(marker->label()) + gaps;
  return width;
}

}  // namespace

void hide_from_legend(QChart* chart, QAbstractSeries* series) {
  series->setProperty(kNoLegend, true);
  for (QLegendMarker* marker : chart->legend()->markers(series)) marker->setVisible(false);
}

void fit_legend(QChart* chart, qreal room) {
  QLegend* legend = chart->legend();
  legend->setShowToolTips(true);  // should a label still be cut, hovering shows it whole
  Qt::Alignment wanted = legend_row_width(legend) <= room ? Qt::AlignBottom : Qt::AlignRight;
  if (legend->alignment() != wanted) legend->setAlignment(wanted);
}

namespace {

// A numbered bars axis labels every bar, or every 2nd, 5th, 10th... as many as fit.
void thin_numbers(QValueAxis* axis, qreal plot_width) {
  qreal bars = axis->max() - axis->min();
  if (bars <= 0 || plot_width <= 0) return;
  QFontMetricsF metrics(axis->labelsFont());
  qreal label = metrics.horizontalAdvance(QString::number(static_cast<int>(bars))) +
                2 * metrics.averageCharWidth();
  double step = 1;
  for (double next : {2.0, 5.0, 10.0, 20.0, 50.0, 100.0}) {
    if (step * plot_width / bars >= label) break;
    step = next;
  }
  if (axis->tickInterval() != step) axis->setTickInterval(step);
}

}  // namespace

// Labels side by side when the widest fits its category's width, else upright.
void fit_category_labels(QChart* chart) {
  for (QAbstractAxis* axis : chart->axes(Qt::Horizontal)) {
    if (axis->objectName() == kNumberedBarsAxis)
      thin_numbers(static_cast<QValueAxis*>(axis), chart->plotArea().width());
    auto* categories = qobject_cast<QBarCategoryAxis*>(axis);
    if (!categories || categories->count() == 0) continue;
    QFontMetricsF metrics(categories->labelsFont());
    qreal widest = 0;
    for (const QString& label : categories->categories())
      for (const QString& line : label.split('\n'))
        widest = std::max(widest, metrics.horizontalAdvance(line));
    qreal room = chart->plotArea().width() / categories->count();
    int angle = widest + metrics.averageCharWidth() <= room ? 0 : -90;
    if (categories->labelsAngle() != angle) categories->setLabelsAngle(angle);
  }
}

}  // namespace scaleout::gui
