// The cluster as a graph (Boost.Graph): devices, node gateways and switches joined by links with a
// bandwidth and a latency. Built from a Cluster for a given number of devices; answers routes.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

// kInternal: a vertex inside a node that is neither a device nor its gateway (a PCIe switch, the
// second CPU socket).
enum class VertexKind { kDevice, kGateway, kSwitch, kInternal };
enum class LinkClass { kIntraNode, kNic, kFabric };

struct TopoVertex {
  VertexKind kind = VertexKind::kSwitch;
  std::string name;
  int node = -1;  // devices and gateways: their node
};

struct TopoEdge {
  std::string name;  // unique; the link's name in results and traces
  double bandwidth = 0;
  double latency = 0;
  LinkClass cls = LinkClass::kFabric;
  int id = 0;  // index into Topology::links()
};

using TopoGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, TopoVertex, TopoEdge>;

// One direction of travel over a link: links are full duplex, each direction has its own capacity.
struct Hop {
  int link = 0;
  bool forward = true;  // from the link's first endpoint to its second
};

struct Path {
  std::vector<Hop> hops;
  double latency = 0;    // sum of link latencies
  double bandwidth = 0;  // slowest link on the way (infinite for an empty path)
};

struct LinkInfo {
  std::string name;
  int a = 0, b = 0;  // vertices
  double bandwidth = 0;
  double latency = 0;
  LinkClass cls = LinkClass::kFabric;
};

class Topology {
 public:
  // Builds the graph for `devices_needed` devices (used when cluster.nodes is auto). Throws
  // InputError when an explicit topology names an unknown endpoint or is not connected.
  static Topology build(const Cluster& cluster, int devices_needed);

  int num_nodes() const { return static_cast<int>(gateways_.size()); }
  int num_devices() const { return static_cast<int>(devices_.size()); }
  int devices_on_node(int node) const;
  int first_device(int node) const { return node_first_device_[node]; }
  int node_of_device(int device) const { return device_node_[device]; }
  int device_vertex(int device) const { return devices_[device]; }
  int gateway_vertex(int node) const { return gateways_[node]; }
  const std::vector<int>& switch_vertices() const { return switches_; }
  const TopoVertex& vertex(int v) const { return graph_[v]; }
  int num_vertices() const { return static_cast<int>(boost::num_vertices(graph_)); }
  const std::vector<LinkInfo>& links() const { return links_; }
  // The index into links() of a device's link into its node (its only link).
  int device_link(int device) const;
  // Peak FLOP/s of a device, after the cluster's speed factors.
  double device_flops(int device) const { return device_flops_[device]; }
  // The slowest of devices 0 .. count-1 (where `count` workers run), in O(1).
  double slowest_device_flops(int count) const { return slowest_prefix_[std::max(1, count) - 1]; }

  // Shortest (fewest hops) path between two devices. Cached per node pair: cheap to call often.
  // Between nodes with several NICs, the path over rail `rail` (0 .. rails()-1).
  Path device_path(int from_device, int to_device, int rail = 0) const;
  // Latency and bandwidth of a transfer between two devices, without building a hop list. Between
  // nodes a transfer is striped evenly over the rails, so its bandwidth is rails() times the
  // slowest rail's share, capped by the links inside the nodes; latency is the slowest rail's.
  struct Cost {
    double latency = 0;
    double bandwidth = 0;
  };
  Cost device_cost(int from_device, int to_device) const;
  // Between two distinct nodes, from gateway to gateway: what every transfer between them shares
  // (all rails together), without the links inside the nodes.
  Cost node_cost(int from_node, int to_node) const;
  // NICs per node, each the start of a rail; a transfer between nodes uses them all.
  int rails() const { return rails_; }
  // Node n's NIC link on rail r (generated networks and explicit rails); -1 when the node has no
  // NIC link of its own (torus, explicit without rails).
  int nic_link(int node, int rail) const;
  // The links from a device up to its node's gateway (where the NICs attach), in that order.
  const std::vector<Hop>& device_chain(int device) const { return chains_[device]; }
  // The same path found by breadth-first search, for checking the tree routing.
  Path searched_node_path(int from_node, int to_node) const {
    return vertex_path(gateways_[from_node], gateways_[to_node]);
  }
  // Shortest path between two gateways or switches (breadth-first search; devices are leaves
  // and never lie on such a path: use device_path for them).
  Path vertex_path(int from, int to) const;
  // True when every vertex can reach every other.
  bool connected() const;

 private:
  static Topology build_graph(const Cluster& cluster, int devices_needed);
  void build_explicit(const Cluster& cluster);
  void build_two_tier(const Cluster& cluster, int nodes);
  void build_fat_tree(const Cluster& cluster, int nodes, const LinkSpec& fabric);
  void build_torus(const NetworkSpec& net, const LinkSpec& fabric);
  int add_switch(const std::string& name);
  void add_tree_nic(int node, int sw, const LinkSpec& nic, int uplink);
  int add_vertex(VertexKind kind, const std::string& name, int node);
  void add_link(int a, int b, const LinkSpec& spec, LinkClass cls, const std::string& name);
  void add_node(int devices, const LinkSpec& intra, const std::string& name);
  void add_node(int devices, const Cluster& cluster, const std::string& name);
  void add_pcie_tree(int node, int devices, const Cluster& cluster, const std::string& name);
  void add_rail_nics(int node, int sw, const LinkSpec& nic, int uplink);
  void take_explicit_rails(const Cluster& cluster, const std::vector<int>& link_lines);
  Path intra_node_path(int from_device, int to_device) const;
  // Latency and slowest bandwidth of the links inside the nodes between two devices: up from
  // one and down to the other, short of the links they share (to_device -1: up to the gateway).
  Cost chain_cost(int from_device, int to_device) const;
  Cost tree_middle_cost(int from_node, int to_node, int rail) const;

  TopoGraph graph_;
  std::vector<LinkInfo> links_;
  std::vector<int> devices_, gateways_, switches_;
  std::vector<int> device_node_, node_first_device_;
  bool tree_routing_ = false;
  std::vector<int> node_nic_;  // tree routing: each node's NIC link (rail 0)
  int rails_ = 1;
  std::vector<std::vector<int>> rail_nics_;  // [node][rail]: NIC links, when rails_ > 1
  std::vector<std::vector<Hop>> chains_;     // [device]: its links up to its gateway
  bool gateways_relay_ = true;               // false: paths between switches avoid nodes
  std::vector<int> node_uplink_;  // tree routing: the uplink of each node's rack (-1: none)
  std::vector<double> device_flops_;
  std::vector<double> slowest_prefix_;  // slowest_prefix_[i] = min of device_flops_[0..i]
  void apply_heterogeneity(const Cluster& cluster);
  const Path& node_path(int from_node, int to_node, int rail = 0) const;
  Path rail_node_path(int from_node, int to_node, int rail) const;
  // Switch and two-tier networks are trees: their node paths follow from the NIC and uplink links
  // without a search (a test checks they equal the breadth-first paths).
  Path tree_node_path(int from_node, int to_node, int rail = 0) const;

  // Breadth-first tree of `from`: for each vertex, the link that first reached it (-1: none).
  const std::vector<int>& bfs_tree(int from) const;

  mutable std::unordered_map<long long, Path> node_path_cache_;
  mutable std::unordered_map<int, std::vector<int>> bfs_trees_;
};

// Where each rank runs. Workers fill nodes in order; parameter servers are placed after them.
struct Placement {
  std::vector<int> worker_device;  // rank -> device
  std::vector<int> server_device;  // PS shard -> device (empty for collectives)
};

// Number of devices a plan needs (workers plus dedicated parameter-server nodes).
int devices_needed(const Plan& plan);
Placement place_ranks(const Plan& plan, const Topology& topo);

}  // namespace scaleout::core
