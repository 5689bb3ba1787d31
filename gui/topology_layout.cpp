#include "gui/topology_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <queue>
#include <unordered_map>

#include "core/plan/units.hpp"

namespace scaleout::gui {

namespace {

using core::LinkClass;
using core::Topology;
using core::VertexKind;

constexpr double kGap = 16, kRowHeight = 110;
constexpr int kBoxesPerLine = 8;
constexpr double kGroupWidth = 132, kGroupHeight = 46;

std::string printf_string(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string bandwidth_text(double bytes_per_s) {
  return printf_string("%.4g GB/s", bytes_per_s / 1e9);
}

// Which box each node is drawn in: its own, or its group's when there are too many nodes. A group
// is the nodes under one switch, or (no switches: a torus) a run of consecutive nodes.
std::vector<int> node_groups(const Topology& topo, int max_boxes, std::vector<std::string>& names,
                             std::vector<int>& switches) {
  bool aggregate = topo.num_nodes() > max_boxes;
  int n = topo.num_nodes();
  std::vector<int> group(n);
  std::map<int, int> by_switch;
  int block = std::max(1, (n + max_boxes - 1) / max_boxes);
  for (int node = 0; node < n; ++node) {
    if (!aggregate) {
      group[node] = node;
      names.push_back(topo.vertex(topo.gateway_vertex(node)).name);
      switches.push_back(-1);
      continue;
    }
    int sw = -1;
    for (const auto& l : topo.links()) {
      int gw = topo.gateway_vertex(node);
      int other = l.a == gw ? l.b : l.b == gw ? l.a : -1;
      if (other >= 0 && topo.vertex(other).kind == VertexKind::kSwitch) {
        sw = other;
        break;
      }
    }
    int key = sw >= 0 ? sw : -1 - node / block;
    auto [it, fresh] = by_switch.emplace(key, static_cast<int>(names.size()));
    if (fresh) {
      int last = std::min(n, (node / block + 1) * block) - 1;
      names.push_back(sw >= 0 ? topo.vertex(sw).name
                              : topo.vertex(topo.gateway_vertex(node)).name + ".." +
                                    topo.vertex(topo.gateway_vertex(last)).name);
      switches.push_back(sw);
    }
    group[node] = it->second;
  }
  return group;
}

struct Builder {
  const Topology& topo;
  TopologyLayout out;
  std::vector<int> box_of_vertex;  // -1: a device (inside its node's box)
  std::vector<int> level;          // per box: 0 nodes, then switches by distance
  std::vector<int> group_switch;   // per node box: the switch its nodes hang off (-1: none)

  explicit Builder(const Topology& t) : topo(t), box_of_vertex(t.num_vertices(), -1) {}

  void add_nodes(int max_boxes);
  void add_switches();
  void add_links(const std::vector<core::LinkLoad>& loads);
  void place();
  void place_grid();
  void place_rows();
  void place_row(const std::vector<int>& row, int r, double width);
  int max_level() const { return *std::max_element(level.begin(), level.end()); }
};

void Builder::add_nodes(int max_boxes) {
  std::vector<std::string> names;
  std::vector<int> group = node_groups(topo, max_boxes, names, group_switch);
  bool aggregate = topo.num_nodes() > max_boxes;
  out.aggregated = aggregate;
  for (const auto& name : names) {
    LayoutBox b;
    b.kind = aggregate ? LayoutBox::Kind::kGroup : LayoutBox::Kind::kNode;
    b.label = name;
    b.nodes = 0;
    out.boxes.push_back(b);
    level.push_back(0);
  }
  for (int node = 0; node < topo.num_nodes(); ++node) {
    LayoutBox& b = out.boxes[group[node]];
    b.nodes += 1;
    b.devices += topo.devices_on_node(node);
    box_of_vertex[topo.gateway_vertex(node)] = group[node];
  }
  for (auto& b : out.boxes) {
    if (b.kind == LayoutBox::Kind::kGroup) {
      b.label += ": " + std::to_string(b.nodes) + " nodes";
      b.tip = b.label + ", " + std::to_string(b.devices) + " devices";
      b.width = kGroupWidth;
      b.height = kGroupHeight;
    } else {
      b.tip = b.label + ": " + std::to_string(b.devices) + " devices";
      b.width = kNodeWidth;
      b.height = node_height(b.devices);
    }
  }
}

// Switches one row above the nodes per hop of distance (breadth first from every node).
void Builder::add_switches() {
  std::unordered_map<int, int> distance;
  std::queue<int> frontier;
  for (int node = 0; node < topo.num_nodes(); ++node) {
    distance[topo.gateway_vertex(node)] = 0;
    frontier.push(topo.gateway_vertex(node));
  }
  std::vector<std::vector<int>> adjacent(topo.num_vertices());
  for (const auto& l : topo.links()) {
    adjacent[l.a].push_back(l.b);
    adjacent[l.b].push_back(l.a);
  }
  while (!frontier.empty()) {
    int v = frontier.front();
    frontier.pop();
    for (int w : adjacent[v])
      if (topo.vertex(w).kind == VertexKind::kSwitch && !distance.count(w)) {
        distance[w] = distance[v] + 1;
        frontier.push(w);
      }
  }
  std::unordered_map<int, int> group_of_switch;
  for (int g = 0; g < static_cast<int>(group_switch.size()); ++g)
    if (group_switch[g] >= 0) group_of_switch[group_switch[g]] = g;
  for (int v : topo.switch_vertices()) {
    if (auto g = group_of_switch.find(v); g != group_of_switch.end()) {
      // A rack: a switch whose links all go to its group's nodes but one (its uplink) is drawn
      // inside the group's box.
      int outside = 0;
      for (int w : adjacent[v]) outside += box_of_vertex[w] != g->second;
      if (outside <= 1) {
        box_of_vertex[v] = g->second;
        out.boxes[g->second].tip += " behind switch " + topo.vertex(v).name;
        continue;
      }
    }
    LayoutBox b;
    b.kind = LayoutBox::Kind::kSwitch;
    b.label = topo.vertex(v).name;
    b.nodes = 0;
    b.tip = "switch " + b.label + ", " + std::to_string(adjacent[v].size()) + " links";
    b.width = std::max(64.0, 8.0 * static_cast<double>(b.label.size()) + 16);
    b.height = 28;
    box_of_vertex[v] = static_cast<int>(out.boxes.size());
    out.boxes.push_back(b);
    level.push_back(distance.count(v) ? distance[v] : 1);
  }
}

void Builder::add_links(const std::vector<core::LinkLoad>& loads) {
  std::unordered_map<std::string, const core::LinkLoad*> load_of;
  for (const auto& l : loads) load_of[l.name] = &l;
  std::map<std::pair<int, int>, int> line_of;
  const auto& links = topo.links();
  for (int i = 0; i < static_cast<int>(links.size()); ++i) {
    if (links[i].cls == LinkClass::kIntraNode) continue;
    int a = box_of_vertex[links[i].a], b = box_of_vertex[links[i].b];
    if (a < 0 || b < 0 || a == b) continue;  // inside one box
    auto [it, fresh] = line_of.emplace(std::minmax(a, b), static_cast<int>(out.links.size()));
    if (fresh) {
      out.links.emplace_back();
      out.links.back().from = a;
      out.links.back().to = b;
    }
    LayoutLink& line = out.links[it->second];
    line.members.push_back(i);
    line.bandwidth += links[i].bandwidth;
    if (auto f = load_of.find(links[i].name); f != load_of.end()) {
      line.loaded = true;
      line.bytes += f->second->bytes;
      line.utilization = std::max(line.utilization, f->second->utilization);
    }
  }
  double top = 0;
  for (const auto& l : out.links) top = std::max(top, l.utilization);
  for (auto& l : out.links) {
    l.busiest = top > 0 && l.utilization >= top;
    const auto& first = links[l.members.front()];
    std::size_t n = l.members.size();
    l.name = n == 1
                 ? first.name
                 : out.boxes[l.from].label.substr(0, out.boxes[l.from].label.find(':')) + " to " +
                       out.boxes[l.to].label.substr(0, out.boxes[l.to].label.find(':')) + " (" +
                       std::to_string(n) + " links)";
    l.tip = l.name + "\nbandwidth " + bandwidth_text(l.bandwidth) +
            (n > 1 ? " (all " + std::to_string(n) + ")" : "");
    if (l.loaded)
      l.tip += "\nbytes " + core::format_bytes(l.bytes) + "\nutilization " +
               printf_string("%.1f %%", l.utilization * 100) + (n > 1 ? " (busiest link)" : "") +
               (l.busiest ? "\nthe busiest link of the run" : "");
    else
      l.tip += "\nno traffic in the result";
  }
}

// A torus (no switches, nodes not aggregated): the nodes as a grid of the torus's rows, read from
// node 0's "-south" link; links that are not between neighbours wrap around.
void Builder::place_grid() {
  int n = static_cast<int>(out.boxes.size());
  int columns = static_cast<int>(std::ceil(std::sqrt(n)));
  int gw0 = topo.gateway_vertex(0);
  for (const auto& l : topo.links())
    if (l.a == gw0 && l.name.size() > 6 && l.name.compare(l.name.size() - 6, 6, "-south") == 0 &&
        box_of_vertex[l.b] > 0)
      columns = box_of_vertex[l.b];
  double cell_w = 0, cell_h = 0;
  for (const auto& b : out.boxes) {
    cell_w = std::max(cell_w, b.width + 2 * kGap);
    cell_h = std::max(cell_h, b.height + 3 * kGap);
  }
  for (int i = 0; i < n; ++i) {
    out.boxes[i].x = kGap + (i % columns) * cell_w;
    out.boxes[i].y = kGap + (i / columns) * cell_h;
  }
  for (auto& l : out.links) {
    int dx = std::abs(l.from % columns - l.to % columns),
        dy = std::abs(l.from / columns - l.to / columns);
    l.wraps = dx + dy > 1;
  }
  out.width = 2 * kGap + columns * cell_w;
  out.height = 2 * kGap + ((n + columns - 1) / columns) * cell_h;
}

// Nodes on the bottom row in order (aggregated boxes wrap into lines of kBoxesPerLine); each
// switch above the middle of what it joins below, the switches of a row pushed apart where they
// would overlap.
void Builder::place_rows() {
  std::vector<int> used(level);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  for (int& l : level)
    l = static_cast<int>(std::lower_bound(used.begin(), used.end(), l) - used.begin());
  int top = static_cast<int>(used.size()) - 1;
  std::vector<std::vector<int>> rows(top + 1);
  for (int i = 0; i < static_cast<int>(out.boxes.size()); ++i) rows[level[i]].push_back(i);
  int per_line = std::max(1, out.aggregated ? kBoxesPerLine : static_cast<int>(rows[0].size()));
  double tallest = 0, width = 0;
  for (int i : rows[0]) tallest = std::max(tallest, out.boxes[i].height);
  double bottom = kGap + top * kRowHeight;
  for (int k = 0; k < static_cast<int>(rows[0].size()); ++k) {
    LayoutBox& b = out.boxes[rows[0][k]];
    const LayoutBox* before = k % per_line ? &out.boxes[rows[0][k - 1]] : nullptr;
    b.x = before ? before->x + before->width + kGap : kGap;
    b.y = bottom + (k / per_line) * (tallest + 3 * kGap);
    width = std::max(width, b.x + b.width + kGap);
  }
  int lines = (static_cast<int>(rows[0].size()) + per_line - 1) / per_line;
  for (int r = 1; r <= top; ++r) place_row(rows[r], r, width);
  double left = 0;
  for (const auto& b : out.boxes) left = std::min(left, b.x - kGap);
  for (auto& b : out.boxes) {
    b.x -= left;
    out.width = std::max(out.width, b.x + b.width + kGap);
  }
  out.height = bottom + lines * (tallest + 3 * kGap);
}

void Builder::place_row(const std::vector<int>& row, int r, double width) {
  std::vector<std::pair<double, int>> wanted;
  for (int i : row) {
    double sum = 0;
    int count = 0;
    for (const auto& l : out.links) {
      int other = l.from == i ? l.to : l.to == i ? l.from : -1;
      if (other < 0 || level[other] >= r) continue;
      sum += out.boxes[other].x + out.boxes[other].width / 2;
      ++count;
    }
    wanted.push_back({count ? sum / count : width / 2, i});
  }
  std::stable_sort(wanted.begin(), wanted.end());
  double right = -1e300, shift = 0;
  for (auto& [centre, i] : wanted) {
    LayoutBox& b = out.boxes[i];
    b.x = std::max(centre - b.width / 2, right + kGap);
    b.y = kGap + (max_level() - r) * kRowHeight;
    right = b.x + b.width;
    shift += (centre - b.width / 2) - b.x;
  }
  shift /= static_cast<double>(std::max<std::size_t>(1, wanted.size()));  // keep it centred
  for (auto& [centre, i] : wanted) out.boxes[i].x += shift;
}

void Builder::place() {
  if (topo.switch_vertices().empty() && !out.aggregated)
    place_grid();
  else
    place_rows();
}

}  // namespace

TopologyLayout layout_topology(const Topology& topo, const std::vector<core::LinkLoad>& loads,
                               int max_node_boxes) {
  Builder b(topo);
  b.add_nodes(max_node_boxes);
  b.add_switches();
  b.add_links(loads);
  b.place();
  return std::move(b.out);
}

Rgb utilization_color(double utilization, bool loaded) {
  if (!loaded) return {150, 150, 150};
  double u = std::clamp(utilization, 0.0, 1.0);
  // green (0) -> yellow (0.5) -> red (1)
  if (u < 0.5) return {static_cast<int>(std::lround(40 + 400 * u)), 170, 40};
  return {230, static_cast<int>(std::lround(170 - 300 * (u - 0.5))), 40};
}

}  // namespace scaleout::gui
