// Keeping a chart's words whole when its view is narrow: titles wrap at spaces, a legend that does
// not fit in one row below the plot moves to its right, bar labels that do not fit beside each
// other turn upright. Qt Charts would otherwise cut each of them with "...".
#pragma once

#include <QFont>
#include <QString>
#include <QStringList>

class QAbstractSeries;
class QChart;

namespace scaleout::gui {

// `text` broken at spaces into lines no wider than `width` pixels in `font` (a word wider than
// that stays whole on its own line); whole when `width` is too small to be a laid-out chart's.
QStringList wrap_words(const QString& text, const QFont& font, qreal width);

// The chart's title as rich text: `title` in bold, `subtitle` smaller below it, each wrapped to
// `width`.
QString wrapped_title(const QString& title, const QString& subtitle, const QFont& font,
                      qreal width);

// Leaves `series` (added to `chart`) out of the legend, and out of the room fit_legend makes.
void hide_from_legend(QChart* chart, QAbstractSeries* series);

// The name of a number axis under bars (0, 1, ...) whose labels fit_category_labels thins out.
inline constexpr const char* kNumberedBarsAxis = "numbered-bars";

// Lays out `chart`'s legend for `room` pixels across, and its category labels for its plot area
// (see above).
void fit_legend(QChart* chart, qreal room);
void fit_category_labels(QChart* chart);

}  // namespace scaleout::gui
