#include "gui/svg_export.hpp"

#include <QGraphicsScene>
#include <QGraphicsView>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace scaleout::gui {

bool save_svg(const QString& path, QSize size, const std::function<void(QPainter&)>& paint) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return false;
  QSvgGenerator svg;
  svg.setOutputDevice(&file);
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(0, 0), size));
  svg.setTitle("scaleout");
  QPainter painter;
  if (!painter.begin(&svg)) return false;
  paint(painter);
  painter.end();
  return file.commit();
}

bool save_scene_svg(QGraphicsView* view, const QString& path, int width) {
  QGraphicsScene* scene = view->scene();
  if (!scene) return false;
  QRectF source = scene->itemsBoundingRect().adjusted(-20, -20, 20, 20);
  if (source.isEmpty()) return false;
  int height = std::max(1, static_cast<int>(width * source.height() / source.width()));
  QSize size(width, height);
  return save_svg(path, size, [&](QPainter& p) {
    p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    scene->render(&p, QRectF(QPointF(0, 0), size), source);
  });
}

bool save_widget_svg(QWidget* widget, const QString& path) {
  QSize size = widget->size();
  return save_svg(path, size, [&](QPainter& p) { widget->render(&p); });
}

}  // namespace scaleout::gui
