// The parts of the topology inside a node (its fabric: a star or a PCIe tree) and at its edge
// (one NIC per rail), and the routes over them.
#include <algorithm>
#include <limits>
#include <string>

#include "core/plan/input_error.hpp"
#include "core/plan/topology.hpp"
#include "core/plan/units.hpp"

namespace scaleout::core {

void Topology::add_node(int devices, const Cluster& c, const std::string& name) {
  if (c.intra_fabric.kind == IntraNodeKind::kPcieTree) {
    add_pcie_tree(static_cast<int>(gateways_.size()), devices, c, name);
  } else {
    add_node(devices, c.intra_node, name);  // nvlink and nvswitch: a star
  }
}

// The gateway stands for socket 0's root complex, where the NICs sit. PCIe switches of
// gpus_per_switch devices each hang off a socket by one uplink; with a socket link, the first
// half of the switches (rounded up) sit on socket 0, the rest on socket 1.
void Topology::add_pcie_tree(int node, int devices, const Cluster& c, const std::string& name) {
  const IntraNodeFabric& f = c.intra_fabric;
  node_first_device_.push_back(static_cast<int>(devices_.size()));
  int gw = add_vertex(VertexKind::kGateway, name, node);
  gateways_.push_back(gw);
  int switches = (devices + f.gpus_per_switch - 1) / f.gpus_per_switch;
  int socket1 = -1, socket_link = -1;
  if (f.socket_link && switches > 1) {
    socket1 = add_vertex(VertexKind::kInternal, name + "-socket1", node);
    socket_link = static_cast<int>(links_.size());
    add_link(socket1, gw, *f.socket_link, LinkClass::kIntraNode, name + "-socket-link");
  }
  int on_socket0 = socket1 < 0 ? switches : (switches + 1) / 2;
  for (int s = 0; s < switches; ++s) {
    std::string sw_name = name + "-pcie" + std::to_string(s);
    int sw = add_vertex(VertexKind::kInternal, sw_name, node);
    bool far = s >= on_socket0;
    int uplink = static_cast<int>(links_.size());
    add_link(sw, far ? socket1 : gw, f.switch_uplink, LinkClass::kIntraNode, sw_name + "-uplink");
    for (int d = s * f.gpus_per_switch; d < std::min(devices, (s + 1) * f.gpus_per_switch); ++d) {
      std::string dev = name + "-dev" + std::to_string(d);
      int v = add_vertex(VertexKind::kDevice, dev, node);
      devices_.push_back(v);
      device_node_.push_back(node);
      std::vector<Hop> chain{{static_cast<int>(links_.size()), true}, {uplink, true}};
      if (far) chain.push_back({socket_link, true});
      chains_.push_back(std::move(chain));
      add_link(v, sw, c.intra_node, LinkClass::kIntraNode, dev + "-link");
    }
  }
}

// Rails 1.. of node n, beside its rail-0 NIC `first` into the same switch.
void Topology::add_rail_nics(int n, int sw, const LinkSpec& nic, int first) {
  if (rails_ == 1) return;
  if (static_cast<int>(rail_nics_.size()) <= n) rail_nics_.resize(n + 1);
  rail_nics_[n] = {first};
  const std::string& name = graph_[gateways_[n]].name;
  for (int r = 1; r < rails_; ++r) {
    rail_nics_[n].push_back(static_cast<int>(links_.size()));
    add_link(gateways_[n], sw, nic, LinkClass::kNic, name + "-nic" + std::to_string(r));
  }
}

int Topology::nic_link(int node, int rail) const {
  if (rails_ > 1) return rail_nics_[node][rail];
  return tree_routing_ ? node_nic_[node] : -1;
}

// Explicit form with rails: each host's links, in the file's order, are its rails; each must
// end at a switch, and the switches of each rail must reach each other without crossing a host.
void Topology::take_explicit_rails(const Cluster& c, const std::vector<int>& link_lines) {
  rail_nics_.assign(num_nodes(), {});
  for (std::size_t i = 0; i < links_.size(); ++i) {
    LinkInfo& l = links_[i];
    if (l.cls == LinkClass::kIntraNode) continue;
    int line = link_lines[i - (links_.size() - link_lines.size())];
    for (int end : {l.a, l.b}) {
      if (graph_[end].kind != VertexKind::kGateway) continue;
      int other = end == l.a ? l.b : l.a;
      if (graph_[other].kind != VertexKind::kSwitch)
        throw InputError(c.file, line, "links",
                         "with nics_per_node, every link of a host is one of its NICs and goes to "
                         "a switch; '" +
                             graph_[end].name + "' links to '" + graph_[other].name + "'");
      rail_nics_[graph_[end].node].push_back(static_cast<int>(i));
      l.cls = LinkClass::kNic;
      graph_[boost::edge(l.a, l.b, graph_).first].cls = LinkClass::kNic;
    }
  }
  for (int n = 0; n < num_nodes(); ++n) {
    if (static_cast<int>(rail_nics_[n].size()) != rails_)
      throw InputError(c.file, c.nics_line, "nics_per_node",
                       "host '" + graph_[gateways_[n]].name + "' has " +
                           std::to_string(rail_nics_[n].size()) + " links to switches, not " +
                           std::to_string(rails_) + " (one per NIC, its rails in order)");
  }
  for (int r = 0; r < rails_; ++r)
    for (int n = 1; n < num_nodes(); ++n)
      if (rail_node_path(0, n, r).latency == kInfinite)
        throw InputError(c.file, c.nics_line, "nics_per_node",
                         "rail " + std::to_string(r) + " of host '" + graph_[gateways_[0]].name +
                             "' cannot reach rail " + std::to_string(r) + " of host '" +
                             graph_[gateways_[n]].name + "' through switches");
}

// Node a's NIC on `rail`, the switches' path to node b's NIC on it, and that NIC.
Path Topology::rail_node_path(int a, int b, int rail) const {
  Path p;
  p.bandwidth = kInfinite;
  if (a == b) return p;
  const LinkInfo& in = links_[rail_nics_[a][rail]];
  const LinkInfo& out = links_[rail_nics_[b][rail]];
  int from = in.a == gateways_[a] ? in.b : in.a, to = out.a == gateways_[b] ? out.b : out.a;
  Path middle = vertex_path(from, to);
  if (middle.latency == kInfinite) return middle;
  p.hops.push_back({rail_nics_[a][rail], in.a == gateways_[a]});
  p.hops.insert(p.hops.end(), middle.hops.begin(), middle.hops.end());
  p.hops.push_back({rail_nics_[b][rail], out.b == gateways_[b]});
  p.latency = in.latency + middle.latency + out.latency;
  p.bandwidth = std::min({in.bandwidth, middle.bandwidth, out.bandwidth});
  return p;
}

Topology::Cost Topology::tree_middle_cost(int a, int b, int rail) const {
  const LinkInfo& in = links_[nic_link(a, rail)];
  const LinkInfo& out = links_[nic_link(b, rail)];
  Cost c{in.latency, std::min(in.bandwidth, out.bandwidth)};
  if (node_uplink_[a] != node_uplink_[b]) {
    const LinkInfo& ua = links_[node_uplink_[a]];
    const LinkInfo& ub = links_[node_uplink_[b]];
    c.latency += ua.latency + ub.latency;
    c.bandwidth = std::min({c.bandwidth, ua.bandwidth, ub.bandwidth});
  }
  c.latency += out.latency;
  return c;
}

Topology::Cost Topology::chain_cost(int from, int to) const {
  const std::vector<Hop>& up = chains_[from];
  static const std::vector<Hop> kNone;
  const std::vector<Hop>& down = to < 0 ? kNone : chains_[to];
  // Links both chains end with lie above the point where the two devices' routes meet.
  std::size_t shared = 0;
  while (shared < up.size() && shared < down.size() &&
         up[up.size() - 1 - shared].link == down[down.size() - 1 - shared].link)
    ++shared;
  Cost c{0, kInfinite};
  for (std::size_t i = 0; i + shared < up.size(); ++i) {
    c.latency += links_[up[i].link].latency;
    c.bandwidth = std::min(c.bandwidth, links_[up[i].link].bandwidth);
  }
  for (std::size_t i = 0; i + shared < down.size(); ++i) {
    c.latency += links_[down[i].link].latency;
    c.bandwidth = std::min(c.bandwidth, links_[down[i].link].bandwidth);
  }
  return c;
}

Path Topology::intra_node_path(int from, int to) const {
  Path p;
  p.bandwidth = kInfinite;
  if (from == to) return p;
  const std::vector<Hop>& up = chains_[from];
  const std::vector<Hop>& down = chains_[to];
  std::size_t shared = 0;
  while (shared < up.size() && shared < down.size() &&
         up[up.size() - 1 - shared].link == down[down.size() - 1 - shared].link)
    ++shared;
  p.hops.assign(up.begin(), up.end() - static_cast<long>(shared));
  for (auto h = down.rbegin() + static_cast<long>(shared); h != down.rend(); ++h)
    p.hops.push_back({h->link, !h->forward});
  Cost c = chain_cost(from, to);
  p.latency = c.latency;
  p.bandwidth = c.bandwidth;
  return p;
}

}  // namespace scaleout::core
