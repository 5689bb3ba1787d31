// Writing a drawing as SVG (lines and text stay vectors) through QSaveFile: a failed write leaves
// no half-written file. Used by the charts, the topology view and the timeline.
#pragma once

#include <QSize>
#include <QString>
#include <functional>

class QPainter;
class QGraphicsView;
class QWidget;

namespace scaleout::gui {

// Paints `paint` into an SVG of `size` at `path`; false when it cannot be written.
bool save_svg(const QString& path, QSize size, const std::function<void(QPainter&)>& paint);

// The whole scene of `view` (not only what is scrolled into sight), `width` wide.
bool save_scene_svg(QGraphicsView* view, const QString& path, int width = 1600);

// `widget` as it paints itself at its current size.
bool save_widget_svg(QWidget* widget, const QString& path);

}  // namespace scaleout::gui
