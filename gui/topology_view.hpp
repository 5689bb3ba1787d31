// The cluster drawn from its topology graph (layout in topology_layout.hpp): nodes with their
// devices, switches, racks and links; links coloured by a result's utilization, the busiest drawn
// thick, hover for name, bandwidth, bytes and utilization. Wheel zooms, dragging pans.
#pragma once

#include <QGraphicsView>
#include <QImage>
#include <QList>
#include <vector>

#include "core/plan/topology.hpp"
#include "core/results/result.hpp"
#include "gui/topology_layout.hpp"

class QGraphicsPathItem;

namespace scaleout::gui {

class TopologyView : public QGraphicsView {
 public:
  explicit TopologyView(QWidget* parent = nullptr);
  // Draws `topo`, its links coloured by `loads` (a result's `links`; empty: not simulated).
  void show_topology(const core::Topology& topo, const std::vector<core::LinkLoad>& loads,
                     const QString& caption);
  const TopologyLayout& drawn() const { return layout_; }
  // One item per drawn link, in the order of drawn().links.
  const QList<QGraphicsPathItem*>& link_items() const { return link_items_; }
  // The whole drawing as an image of `size` (fitted), also when the view is not shown.
  QImage image(QSize size);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void draw_box(const LayoutBox& box);
  void draw_link(const LayoutLink& link);
  void fit();

  TopologyLayout layout_;
  QList<QGraphicsPathItem*> link_items_;
  bool zoomed_ = false;  // the user zoomed: stop fitting on resize
};

}  // namespace scaleout::gui
