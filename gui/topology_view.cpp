#include "gui/topology_view.hpp"

#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>

namespace scaleout::gui {

namespace {

QColor to_qcolor(Rgb c) { return QColor(c.r, c.g, c.b); }

QPointF centre(const LayoutBox& b) { return {b.x + b.width / 2, b.y + b.height / 2}; }

// Where a line between two boxes ends on `b`: the middle of the side facing `other` when one is
// above the other, else the centre.
QPointF anchor(const LayoutBox& b, const LayoutBox& other) {
  if (other.y + other.height <= b.y) return {b.x + b.width / 2, b.y};
  if (other.y >= b.y + b.height) return {b.x + b.width / 2, b.y + b.height};
  return centre(b);
}

QString text(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

TopologyView::TopologyView(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setBackgroundBrush(Qt::white);
  setMinimumSize(400, 300);
}

void TopologyView::show_topology(const core::Topology& topo,
                                 const std::vector<core::LinkLoad>& loads, const QString& caption) {
  layout_ = layout_topology(topo, loads);
  scene()->clear();
  link_items_.clear();
  for (const auto& link : layout_.links) draw_link(link);  // under the boxes
  for (const auto& box : layout_.boxes) draw_box(box);
  QString legend = caption + "\n" +
                   (loads.empty() ? QString("links not coloured: no simulated traffic")
                                  : QString("link colour: utilization, green (idle) to red (full); "
                                            "grey: no traffic; thick: the busiest"));
  if (layout_.aggregated) legend += "\nlarge cluster: the nodes under one switch drawn as one box";
  auto* title = scene()->addSimpleText(legend);
  title->setPos(0, -16 - title->boundingRect().height());
  scene()->setSceneRect(scene()->itemsBoundingRect().adjusted(-10, -10, 10, 10));
  zoomed_ = false;
  fit();
}

void TopologyView::draw_box(const LayoutBox& b) {
  bool sw = b.kind == LayoutBox::Kind::kSwitch;
  QColor fill = sw ? QColor(0xe8, 0xee, 0xf7) : QColor(0xf4, 0xf4, 0xf0);
  auto* rect =
      scene()->addRect(QRectF(b.x, b.y, b.width, b.height), QPen(QColor(90, 90, 90), 1), fill);
  rect->setToolTip(text(b.tip));
  auto* label = new QGraphicsSimpleTextItem(text(b.label), rect);
  QFont font = label->font();
  font.setPointSizeF(sw ? 8 : 7.5);
  label->setFont(font);
  QRectF r = label->boundingRect();
  label->setPos(b.x + (b.width - r.width()) / 2, sw ? b.y + (b.height - r.height()) / 2 : b.y + 4);
  if (b.kind == LayoutBox::Kind::kGroup) {
    auto* count = new QGraphicsSimpleTextItem(QString("%1 devices").arg(b.devices), rect);
    count->setFont(font);
    count->setPos(b.x + (b.width - count->boundingRect().width()) / 2, b.y + 24);
  } else if (b.kind == LayoutBox::Kind::kNode) {
    double row_width = kDevicesPerRow * (kDeviceSize + 3) - 3;
    for (int d = 0; d < b.devices; ++d) {
      double x = b.x + (b.width - row_width) / 2 + (d % kDevicesPerRow) * (kDeviceSize + 3);
      double y = b.y + 22 + (d / kDevicesPerRow) * (kDeviceSize + 3);
      auto* dev = new QGraphicsRectItem(x, y, kDeviceSize, kDeviceSize, rect);
      dev->setBrush(QColor(0x4c, 0x72, 0xb0));
      dev->setPen(Qt::NoPen);
      dev->setToolTip(QString("%1-dev%2").arg(text(b.label)).arg(d));
    }
  }
}

void TopologyView::draw_link(const LayoutLink& l) {
  const LayoutBox &from = layout_.boxes[l.from], &to = layout_.boxes[l.to];
  QPointF a = anchor(from, to), b = anchor(to, from);
  QPainterPath path(a);
  if (l.wraps) {  // around the outside, bowed away from the boxes between
    QPointF mid = (a + b) / 2, d = b - a;
    QPointF normal(-d.y(), d.x());
    path.quadTo(mid + normal * 0.25, b);
  } else {
    path.lineTo(b);
  }
  QPen pen(to_qcolor(utilization_color(l.utilization, l.loaded)), l.busiest ? 6 : 2.5);
  pen.setCapStyle(Qt::RoundCap);
  auto* item = scene()->addPath(path, pen);
  item->setToolTip(text(l.tip));
  item->setZValue(l.busiest ? -1 : -2);
  link_items_.append(item);
}

QImage TopologyView::image(QSize size) {
  if (!isVisible()) resize(size);
  fit();
  return grab().toImage();
}

void TopologyView::fit() {
  if (!zoomed_) fitInView(sceneRect(), Qt::KeepAspectRatio);
}

void TopologyView::wheelEvent(QWheelEvent* event) {
  double factor = event->angleDelta().y() > 0 ? 1.25 : 0.8;
  scale(factor, factor);
  zoomed_ = true;
}

void TopologyView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  fit();
}

}  // namespace scaleout::gui
