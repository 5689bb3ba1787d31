// Where the topology view draws each part of a cluster, without Qt: nodes (with their device
// count) on the bottom row, switches above them by their distance from the nodes, and the links
// between, coloured later by a result's link loads. A cluster with more nodes than fit is drawn
// aggregated: the nodes under one switch become one box that says how many there are, and their
// NIC links one line.
#pragma once

#include <string>
#include <vector>

#include "core/plan/topology.hpp"
#include "core/results/result.hpp"

namespace scaleout::gui {

struct LayoutBox {
  enum class Kind { kNode, kSwitch, kGroup };  // kGroup: several nodes drawn as one
  Kind kind = Kind::kNode;
  std::string label;                           // "node3", "rack2", "rack2: 32 nodes"
  std::string tip;                             // hover text
  double x = 0, y = 0, width = 0, height = 0;  // top-left corner and size, in scene units
  int nodes = 1;                               // nodes inside (kNode: 1; kSwitch: 0)
  int devices = 0;                             // devices inside
};

struct LayoutLink {
  int from = 0, to = 0;      // indices into TopologyLayout::boxes
  std::vector<int> members;  // indices into Topology::links() drawn as this line
  std::string name;          // the link's name, or "rack2 NICs (32 links)"
  double bandwidth = 0;      // bytes/s; summed over members
  double bytes = 0;          // summed over members (0 without loads)
  double utilization = 0;    // the busiest member's
  bool loaded = false;       // some member has a load in the result
  bool busiest = false;      // the highest utilization of the drawing (when above 0)
  bool wraps = false;        // joins boxes that are not neighbours (torus wrap-around)
  std::string tip;           // name, bandwidth, bytes and utilization
};

struct TopologyLayout {
  std::vector<LayoutBox> boxes;
  std::vector<LayoutLink> links;
  bool aggregated = false;
  double width = 0, height = 0;  // of the whole drawing
};

// Nodes drawn one box each up to this many; beyond, aggregated.
constexpr int kMaxNodeBoxes = 32;

// A node box: its name on top, then its devices as squares, kDevicesPerRow to a row.
constexpr double kNodeWidth = 72, kDeviceSize = 12;
constexpr int kDevicesPerRow = 4;
inline double node_height(int devices) {
  return 24 + (kDeviceSize + 3) * ((devices + kDevicesPerRow - 1) / kDevicesPerRow) + 4;
}

// Lays out `topo`; `loads` (a result's `links`, matched by name) colour the links when given.
TopologyLayout layout_topology(const core::Topology& topo,
                               const std::vector<core::LinkLoad>& loads = {},
                               int max_node_boxes = kMaxNodeBoxes);

struct Rgb {
  int r = 0, g = 0, b = 0;
};
// The colour of a link at `utilization` (0..1): grey when not loaded, then green through yellow
// to red as it fills.
Rgb utilization_color(double utilization, bool loaded);

}  // namespace scaleout::gui
