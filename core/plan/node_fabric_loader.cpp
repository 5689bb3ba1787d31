#include "core/plan/node_fabric_loader.hpp"

#include "core/plan/plan_loader.hpp"

namespace scaleout::core {

LinkSpec read_link(YamlMap& parent, const std::string& key) {
  YamlMap m(parent.child(key), parent.file(), parent.field(key));
  LinkSpec link;
  link.bandwidth = m.get_quantity("bandwidth", Quantity::kBandwidth);
  link.latency = m.get_quantity("latency", Quantity::kTime, 0.0, /*positive=*/false);
  m.finish();
  return link;
}

namespace {

void read_intra_node(YamlMap& parent, Cluster& c) {
  if (!parent.has("intra_node")) {
    parent.child("intra_node", false);
    c.intra_node = LinkSpec{};
    return;
  }
  YAML::Node node = parent.child("intra_node");
  YamlMap m(node, parent.file(), parent.field("intra_node"));
  IntraNodeFabric& f = c.intra_fabric;
  f.line = line_of(node);
  std::string kind = m.get_choice("kind", {"nvlink", "pcie_tree", "nvswitch"}, "nvlink");
  f.kind = kind == "pcie_tree"  ? IntraNodeKind::kPcieTree
           : kind == "nvswitch" ? IntraNodeKind::kNvswitch
                                : IntraNodeKind::kNvlink;
  // The devices' own links: into the node switch, or into their PCIe switch.
  c.intra_node.bandwidth = m.get_quantity("bandwidth", Quantity::kBandwidth);
  c.intra_node.latency = m.get_quantity("latency", Quantity::kTime, 0.0, /*positive=*/false);
  if (f.kind == IntraNodeKind::kPcieTree) {
    f.gpus_per_switch = m.get_int("gpus_per_switch", 1, kMaxDevicesPerNode);
    f.switch_uplink = read_link(m, "uplink");
    if (m.has("socket_link")) f.socket_link = read_link(m, "socket_link");
  }
  m.finish();  // pcie_tree's fields under another kind are unknown keys, refused by name
}

}  // namespace

const char* intra_node_kind_name(IntraNodeKind kind) {
  switch (kind) {
    case IntraNodeKind::kPcieTree:
      return "pcie_tree";
    case IntraNodeKind::kNvswitch:
      return "nvswitch";
    case IntraNodeKind::kNvlink:
      break;
  }
  return "nvlink";
}

void read_node_fabric(YamlMap& m, Cluster& c) {
  read_intra_node(m, c);
  if (m.has("nics_per_node")) c.nics_line = line_of(m.node()["nics_per_node"]);
  c.nics_per_node = m.get_int_or("nics_per_node", 1, 1, kMaxNicsPerNode);
  if (c.nics_per_node > 1 && c.network.kind == NetworkKind::kTorus2d)
    m.fail("nics_per_node", "a torus2d network joins nodes directly, without NICs to add rails to");
}

}  // namespace scaleout::core
