#include "core/plan/topology.hpp"

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <cassert>
#include <limits>
#include <map>

#include "core/plan/input_error.hpp"
#include "core/plan/units.hpp"

namespace scaleout::core {

namespace {
std::string node_name(int n) { return "node" + std::to_string(n); }
}  // namespace

int Topology::add_vertex(VertexKind kind, const std::string& name, int node) {
  int v = static_cast<int>(boost::add_vertex(graph_));
  graph_[v] = TopoVertex{kind, name, node};
  return v;
}

void Topology::add_link(int a, int b, const LinkSpec& spec, LinkClass cls,
                        const std::string& name) {
  int id = static_cast<int>(links_.size());
  links_.push_back(LinkInfo{name, a, b, spec.bandwidth, spec.latency, cls});
  boost::add_edge(a, b, TopoEdge{name, spec.bandwidth, spec.latency, cls, id}, graph_);
}

void Topology::add_node(int devices, const LinkSpec& intra, const std::string& name) {
  int node = static_cast<int>(gateways_.size());
  node_first_device_.push_back(static_cast<int>(devices_.size()));
  int gw = add_vertex(VertexKind::kGateway, name, node);
  gateways_.push_back(gw);
  for (int d = 0; d < devices; ++d) {
    std::string dev = name + "-dev" + std::to_string(d);
    int v = add_vertex(VertexKind::kDevice, dev, node);
    devices_.push_back(v);
    device_node_.push_back(node);
    chains_.push_back({Hop{static_cast<int>(links_.size()), true}});
    add_link(v, gw, intra, LinkClass::kIntraNode, dev + "-link");
  }
}

int Topology::devices_on_node(int node) const {
  int end = node + 1 < num_nodes() ? node_first_device_[node + 1] : num_devices();
  return end - node_first_device_[node];
}

Topology Topology::build(const Cluster& c, int devices_needed) {
  Topology t = build_graph(c, devices_needed);
  t.device_flops_.assign(t.num_devices(), c.device.flops);
  t.apply_heterogeneity(c);
  for (double f : t.device_flops_)
    t.slowest_prefix_.push_back(t.slowest_prefix_.empty() ? f
                                                          : std::min(t.slowest_prefix_.back(), f));
  return t;
}

void Topology::apply_heterogeneity(const Cluster& c) {
  const Heterogeneity& h = c.heterogeneity;
  for (const auto& [name, factor] : h.speed_factors) {
    bool found = false;
    for (int d = 0; d < num_devices(); ++d) {
      const std::string& dev = graph_[devices_[d]].name;
      const std::string& node = graph_[gateways_[device_node_[d]]].name;
      if (dev == name || node == name) {
        device_flops_[d] *= factor;
        found = true;
      }
    }
    if (!found)
      throw InputError(c.file, h.line, "speed_factors." + name,
                       "no node or device of this cluster is named '" + name + "'");
  }
  for (const auto& [name, bandwidth] : h.link_bandwidth) {
    auto it = std::find_if(links_.begin(), links_.end(),
                           [&name = name](const LinkInfo& l) { return l.name == name; });
    if (it == links_.end())
      throw InputError(c.file, h.line, "link_bandwidth." + name,
                       "no link of this cluster is named '" + name + "'");
    it->bandwidth = bandwidth;
    graph_[boost::edge(it->a, it->b, graph_).first].bandwidth = bandwidth;
  }
}

int Topology::add_switch(const std::string& name) {
  int v = add_vertex(VertexKind::kSwitch, name, -1);
  switches_.push_back(v);
  return v;
}

// Hosts, switches and links as the user named them.
void Topology::build_explicit(const Cluster& c) {
  std::map<std::string, int> by_name;
  for (const auto& h : c.hosts) {
    if (by_name.count(h.name))
      throw InputError(c.file, 0, "hosts", "host '" + h.name + "' is named twice");
    add_node(h.devices, c, h.name);
    by_name[h.name] = gateways_.back();
  }
  for (const auto& s : c.switches) {
    if (by_name.count(s)) throw InputError(c.file, 0, "switches", "'" + s + "' is named twice");
    by_name[s] = add_switch(s);
  }
  std::map<std::pair<int, int>, std::pair<int, int>> joined;  // ends -> first line, count
  std::vector<int> link_lines;
  for (const auto& l : c.links) {
    for (const auto* end : {&l.a, &l.b})
      if (!by_name.count(*end))
        throw InputError(c.file, l.line, "links", "unknown host or switch '" + *end + "'");
    int a = by_name[l.a], b = by_name[l.b];
    auto& [first_line, count] = joined[std::minmax(a, b)];
    if (count++ == 0) first_line = l.line;
    bool host_end =
        graph_[a].kind == VertexKind::kGateway || graph_[b].kind == VertexKind::kGateway;
    // Two links between the same ends once made SimGrid abort on the repeated link name.
    if (count > 1 && !(host_end && rails_ > 1))
      throw InputError(
          c.file, l.line, "links",
          "'" + l.a + "' and '" + l.b + "' are already joined by the link on line " +
              std::to_string(first_line) +
              (host_end ? "; a host's several NICs are rails: set nics_per_node and list one "
                          "link to a switch per NIC"
                        : "; parallel links between switches are not modelled: give one link "
                          "with their summed bandwidth"));
    std::string name = l.a + "-" + l.b + (count > 1 ? "-" + std::to_string(count) : "");
    add_link(a, b, l.link, LinkClass::kFabric, name);
    link_lines.push_back(l.line);
  }
  if (rails_ > 1) take_explicit_rails(c, link_lines);
  if (!connected())
    throw InputError(c.file, 0, "links", "the hosts and switches are not all connected");
}

// Node n's NIC into `sw`, remembered for tree routing with its rack's uplink (-1: none).
void Topology::add_tree_nic(int n, int sw, const LinkSpec& nic, int uplink) {
  node_nic_.push_back(static_cast<int>(links_.size()));
  node_uplink_.push_back(uplink);
  add_link(gateways_[n], sw, nic, LinkClass::kNic, node_name(n) + "-nic");
  add_rail_nics(n, sw, nic, node_nic_.back());
}

void Topology::build_two_tier(const Cluster& c, int nodes) {
  const NetworkSpec& net = c.network;
  int core = add_switch("core");
  int racks = (nodes + net.hosts_per_rack - 1) / net.hosts_per_rack;
  for (int r = 0; r < racks; ++r) {
    std::string rack = "rack" + std::to_string(r);
    int sw = add_switch(rack);
    int uplink = static_cast<int>(links_.size());
    add_link(sw, core, net.uplink, LinkClass::kFabric, rack + "-uplink");
    for (int n = r * net.hosts_per_rack; n < std::min(nodes, (r + 1) * net.hosts_per_rack); ++n)
      add_tree_nic(n, sw, c.nic, uplink);
  }
}

// k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core switches; k/2 hosts per edge.
void Topology::build_fat_tree(const Cluster& c, int nodes, const LinkSpec& fabric) {
  int k = c.network.fat_tree_k, h = k / 2;
  std::vector<int> core;
  for (int i = 0; i < h * h; ++i) core.push_back(add_switch("core" + std::to_string(i)));
  for (int p = 0; p < k; ++p) {
    std::vector<int> agg, edge;
    for (int i = 0; i < h; ++i)
      agg.push_back(add_switch("pod" + std::to_string(p) + "-agg" + std::to_string(i)));
    for (int i = 0; i < h; ++i)
      edge.push_back(add_switch("pod" + std::to_string(p) + "-edge" + std::to_string(i)));
    for (int a = 0; a < h; ++a) {
      for (int e = 0; e < h; ++e)
        add_link(edge[e], agg[a], fabric, LinkClass::kFabric,
                 graph_[edge[e]].name + "-agg" + std::to_string(a));
      for (int j = 0; j < h; ++j)
        add_link(agg[a], core[a * h + j], fabric, LinkClass::kFabric,
                 graph_[agg[a]].name + "-core" + std::to_string(a * h + j));
    }
    for (int e = 0; e < h; ++e)
      for (int j = 0; j < h; ++j) {
        int n = (p * h + e) * h + j;
        if (n < nodes) {
          add_link(gateways_[n], edge[e], c.nic, LinkClass::kNic, node_name(n) + "-nic");
          add_rail_nics(n, edge[e], c.nic, static_cast<int>(links_.size()) - 1);
        }
      }
  }
}

void Topology::build_torus(const NetworkSpec& net, const LinkSpec& fabric) {
  int X = net.dims[0], Y = net.dims[1];
  auto at = [&](int x, int y) { return gateways_[((y + Y) % Y) * X + ((x + X) % X)]; };
  for (int y = 0; y < Y; ++y)
    for (int x = 0; x < X; ++x) {
      int n = y * X + x;
      // Right and down neighbours, with wrap-around; a ring of two needs one link, of one none.
      if (X > 2 || (X == 2 && x == 0))
        add_link(at(x, y), at(x + 1, y), fabric, LinkClass::kFabric, node_name(n) + "-east");
      if (Y > 2 || (Y == 2 && y == 0))
        add_link(at(x, y), at(x, y + 1), fabric, LinkClass::kFabric, node_name(n) + "-south");
    }
}

Topology Topology::build_graph(const Cluster& c, int devices_needed) {
  Topology t;
  t.rails_ = c.nics_per_node;
  t.gateways_relay_ = t.rails_ == 1;  // with rails, a path between switches never relays via nodes
  const NetworkSpec& net = c.network;
  if (net.kind == NetworkKind::kExplicit) {
    t.build_explicit(c);
    return t;
  }
  int dpn = c.devices_per_node;
  int nodes = c.nodes ? *c.nodes : std::max(1, (devices_needed + dpn - 1) / dpn);
  if (net.kind == NetworkKind::kTorus2d) nodes = net.dims[0] * net.dims[1];
  if (net.kind == NetworkKind::kFatTree)
    nodes = std::min(nodes, net.fat_tree_k * net.fat_tree_k * net.fat_tree_k / 4);
  for (int n = 0; n < nodes; ++n) t.add_node(dpn, c, node_name(n));
  const LinkSpec fabric = net.fabric.value_or(c.nic);
  switch (net.kind) {
    case NetworkKind::kSwitch: {
      t.tree_routing_ = true;
      int sw = t.add_switch("switch");
      for (int n = 0; n < nodes; ++n) t.add_tree_nic(n, sw, c.nic, -1);
      break;
    }
    case NetworkKind::kTwoTier:
      t.tree_routing_ = true;
      t.build_two_tier(c, nodes);
      break;
    case NetworkKind::kFatTree:
      t.build_fat_tree(c, nodes, fabric);
      break;
    case NetworkKind::kTorus2d:
      t.build_torus(net, fabric);
      break;
    case NetworkKind::kExplicit:
      break;
  }
  return t;
}

bool Topology::connected() const {
  if (boost::num_vertices(graph_) == 0) return true;
  std::vector<int> component(boost::num_vertices(graph_));
  return boost::connected_components(graph_, component.data()) == 1;
}

const std::vector<int>& Topology::bfs_tree(int from) const {
  auto it = bfs_trees_.find(from);
  if (it != bfs_trees_.end()) return it->second;
  if (bfs_trees_.size() >= 1024) bfs_trees_.clear();  // bound memory on very long sweeps
  std::vector<int> via(boost::num_vertices(graph_), -1);
  std::vector<bool> seen(via.size(), false);
  std::vector<int> queue{from};
  seen[from] = true;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    int v = queue[i];
    if (!gateways_relay_ && v != from && graph_[v].kind == VertexKind::kGateway) continue;
    for (auto [e, end] = boost::out_edges(v, graph_); e != end; ++e) {
      int w = static_cast<int>(boost::target(*e, graph_));
      // Devices are leaves: no path between gateways or switches crosses one.
      if (seen[w] || graph_[w].kind == VertexKind::kDevice ||
          graph_[w].kind == VertexKind::kInternal)
        continue;
      seen[w] = true;
      via[w] = graph_[*e].id;
      queue.push_back(w);
    }
  }
  return bfs_trees_.emplace(from, std::move(via)).first->second;
}

Path Topology::vertex_path(int from, int to) const {
  Path path;
  path.bandwidth = kInfinite;
  if (from == to) return path;
  const std::vector<int>& via = bfs_tree(from);
  if (via[to] < 0) {
    path.bandwidth = 0;
    path.latency = kInfinite;
    return path;
  }
  for (int v = to; v != from;) {
    const LinkInfo& link = links_[via[v]];
    int prev = link.a == v ? link.b : link.a;
    path.hops.push_back(Hop{via[v], link.a == prev});
    path.latency += link.latency;
    path.bandwidth = std::min(path.bandwidth, link.bandwidth);
    v = prev;
  }
  std::reverse(path.hops.begin(), path.hops.end());
  return path;
}

Path Topology::tree_node_path(int a, int b, int rail) const {
  Path p;
  p.bandwidth = kInfinite;
  if (a == b) return p;
  // NIC links and uplinks run from the lower end (gateway, rack switch) upwards.
  std::vector<Hop> hops{{nic_link(a, rail), true}};
  if (node_uplink_[a] != node_uplink_[b]) {
    hops.push_back({node_uplink_[a], true});
    hops.push_back({node_uplink_[b], false});
  }
  hops.push_back({nic_link(b, rail), false});
  for (const Hop& h : hops) {
    p.latency += links_[h.link].latency;
    p.bandwidth = std::min(p.bandwidth, links_[h.link].bandwidth);
  }
  p.hops = std::move(hops);
  return p;
}

const Path& Topology::node_path(int a, int b, int rail) const {
  long long key = (static_cast<long long>(a) * num_nodes() + b) * rails_ + rail;
  auto it = node_path_cache_.find(key);
  if (it == node_path_cache_.end())
    it = node_path_cache_
             .emplace(key, tree_routing_ ? tree_node_path(a, b, rail)
                           : rails_ > 1  ? rail_node_path(a, b, rail)
                                         : vertex_path(gateways_[a], gateways_[b]))
             .first;
  return it->second;
}

int Topology::device_link(int device) const {
  // A device's only edge is its link to the node gateway.
  auto [e, end] = boost::out_edges(devices_[device], graph_);
  assert(e != end);
  return graph_[*e].id;
}

Path Topology::device_path(int from_device, int to_device, int rail) const {
  int a = device_node_[from_device], b = device_node_[to_device];
  if (a == b) return intra_node_path(from_device, to_device);
  Path out;
  out.bandwidth = kInfinite;
  const Path& middle = node_path(a, b, rail);
  // device -> gateway over its node's links, the gateways' path, gateway -> device.
  const std::vector<Hop>& up = chains_[from_device];
  const std::vector<Hop>& down = chains_[to_device];
  out.hops = up;
  out.hops.insert(out.hops.end(), middle.hops.begin(), middle.hops.end());
  for (auto h = down.rbegin(); h != down.rend(); ++h) out.hops.push_back({h->link, !h->forward});
  Cost first = chain_cost(from_device, -1), last = chain_cost(to_device, -1);
  out.latency = first.latency + middle.latency + last.latency;
  out.bandwidth = std::min({first.bandwidth, middle.bandwidth, last.bandwidth});
  return out;
}

Topology::Cost Topology::device_cost(int from_device, int to_device) const {
  if (from_device == to_device) return {0, kInfinite};
  Cost out = chain_cost(from_device, to_device);
  int a = device_node_[from_device], b = device_node_[to_device];
  if (a == b) return out;
  Cost between = node_cost(a, b);
  out.latency += between.latency;
  out.bandwidth = std::min(out.bandwidth, between.bandwidth);
  return out;
}

Topology::Cost Topology::node_cost(int a, int b) const {
  // Striped evenly: the slowest rail sets the pace of every rail's equal share.
  double latency = 0, bandwidth = kInfinite;
  for (int r = 0; r < rails_; ++r) {
    // Tree networks: no cache needed, the path is a handful of known links.
    Cost m = tree_routing_ ? tree_middle_cost(a, b, r) : [&] {
      const Path& p = node_path(a, b, r);
      return Cost{p.latency, p.bandwidth};
    }();
    latency = std::max(latency, m.latency);
    bandwidth = std::min(bandwidth, m.bandwidth);
  }
  return {latency, rails_ * bandwidth};
}

int devices_needed(const Plan& plan) {
  const auto& s = plan.strategy;
  int workers = plan.training.workers;
  if (s.kind != StrategyKind::kPs || s.ps_placement == PsPlacement::kColocated) return workers;
  int dpn = std::max(1, plan.cluster.devices_per_node);
  return (workers + dpn - 1) / dpn * dpn + s.ps_servers * dpn;
}

Placement place_ranks(const Plan& plan, const Topology& topo) {
  Placement p;
  int workers = plan.training.workers;
  assert(workers <= topo.num_devices());
  for (int r = 0; r < workers; ++r) p.worker_device.push_back(r);
  const auto& s = plan.strategy;
  if (s.kind != StrategyKind::kPs) return p;
  if (s.ps_placement == PsPlacement::kColocated) {
    // Spread servers over the workers: shard j sits beside worker j * (workers / servers).
    for (int j = 0; j < s.ps_servers; ++j) p.server_device.push_back(j * (workers / s.ps_servers));
    return p;
  }
  // Dedicated: each server takes the first device of a node no worker uses.
  int first_free_node = topo.node_of_device(workers - 1) + 1;
  for (int j = 0; j < s.ps_servers; ++j) {
    int node = first_free_node + j;
    if (node >= topo.num_nodes())
      throw InputError(plan.file, s.line, "strategy.servers",
                       "no node is left for dedicated parameter server " + std::to_string(j));
    p.server_device.push_back(topo.first_device(node));
  }
  return p;
}

}  // namespace scaleout::core
