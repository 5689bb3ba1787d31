// The fields of the network's kind and shape and of the node's fabric (intra-node kind, NICs per
// node) and of the transport between hosts, each edited as the same edit of the plan's YAML.
#include "core/plan/node_fabric_loader.hpp"
#include "core/plan/units.hpp"
#include "gui/plan_fields.hpp"
#include "gui/plan_yaml_edit.hpp"

namespace scaleout::gui {

namespace {

using core::NetworkKind;
using core::Plan;

const char* network_name(NetworkKind k) {
  static const char* names[] = {"switch", "two_tier", "fat_tree", "torus2d", "explicit"};
  return names[static_cast<int>(k)];
}

// Values a network kind needs when the plan has none yet: 4 hosts per rack with the NIC's link
// as uplink (4:1 oversubscribed), a 4-ary fat tree, an 8x8 torus. The user edits them next.
YAML::Node network_of_kind(const Plan& plan, const std::string& kind, YAML::Node cluster) {
  const core::NetworkSpec& n = plan.cluster.network;
  YAML::Node net(YAML::NodeType::Map);
  net["kind"] = kind;
  if (kind == "two_tier") {
    net["hosts_per_rack"] = n.hosts_per_rack > 0 ? n.hosts_per_rack : 4;
    net["uplink"] = link_node(n.uplink.bandwidth > 0 ? n.uplink : plan.cluster.nic);
  } else if (kind == "fat_tree") {
    net["k"] = n.fat_tree_k > 0 ? n.fat_tree_k : 4;
  } else if (kind == "torus2d") {
    YAML::Node dims(YAML::NodeType::Sequence);
    dims.push_back(n.dims[0] > 0 ? n.dims[0] : 8);
    dims.push_back(n.dims[0] > 0 ? n.dims[1] : 8);
    dims.SetStyle(YAML::EmitterStyle::Flow);
    net["dims"] = dims;
    cluster.remove("nodes");  // a torus has dims[0] x dims[1] nodes
    cluster.remove("nics_per_node");
  }
  if (n.fabric && (kind == "fat_tree" || kind == "torus2d")) net["link"] = link_node(*n.fabric);
  return net;
}

// A key of cluster.network, read when the network's kind is `kind`.
PlanField network_knob(const std::string& key, std::string label, NetworkKind kind, FieldGetter get,
                       YamlEdit edit) {
  PlanField f = yaml_text("network." + key, std::move(label), std::move(get), std::move(edit));
  f.why_off = off_unless([kind](const Plan& p) { return p.cluster.network.kind == kind; },
                         std::string("applies to network kind ") + network_name(kind));
  f.resizes = true;
  return f;
}

YAML::Node network_map(YAML::Node& root) { return yaml_at(root, {"cluster", "network"}); }

void add_network_kind_fields(std::vector<PlanField>& f) {
  f.push_back(yaml_field(
      "network.kind", "network", PlanField::Kind::kChoice,
      {"switch", "two_tier", "fat_tree", "torus2d"},
      [](const WhatIf& w) { return std::string(network_name(w.plan.cluster.network.kind)); },
      [](YAML::Node& root, const Plan& plan, const std::string& text) {
        if (text == network_name(plan.cluster.network.kind)) return;
        YAML::Node cluster = yaml_at(root, {"cluster"});
        cluster["network"] = network_of_kind(plan, text, cluster);
      }));
  f.back().why_off =
      off_unless([](const Plan& p) { return p.cluster.network.kind != NetworkKind::kExplicit; },
                 "an explicit network (hosts, switches, links): edit it in its YAML");
  f.back().resizes = true;
  f.push_back(network_knob(
      "hosts_per_rack", "hosts per rack", NetworkKind::kTwoTier,
      [](const WhatIf& w) {
        int h = w.plan.cluster.network.hosts_per_rack;
        return h > 0 ? std::to_string(h) : std::string();
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(network_map(root), "hosts_per_rack", text);
      }));
  f.push_back(network_knob(
      "uplink", "rack uplink bandwidth", NetworkKind::kTwoTier,
      [](const WhatIf& w) {
        double b = w.plan.cluster.network.uplink.bandwidth;
        return b > 0 ? format_bandwidth(b) : std::string();
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(yaml_at(network_map(root), {"uplink"}), "bandwidth", text);
      }));
  f.push_back(network_knob(
      "k", "fat tree k", NetworkKind::kFatTree,
      [](const WhatIf& w) {
        int k = w.plan.cluster.network.fat_tree_k;
        return k > 0 ? std::to_string(k) : std::string();
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(network_map(root), "k", text);
      }));
  f.push_back(network_knob(
      "dims", "torus dims (XxY)", NetworkKind::kTorus2d,
      [](const WhatIf& w) {
        const auto& d = w.plan.cluster.network.dims;
        return pair_text(d[0], d[1]);
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        network_map(root)["dims"] = pair_node(text);
      }));
}

void add_node_fabric_fields(std::vector<PlanField>& f) {
  f.push_back(yaml_text(
      "cluster.nics_per_node", "NICs per node",
      [](const WhatIf& w) { return std::to_string(w.plan.cluster.nics_per_node); },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(yaml_at(root, {"cluster"}), "nics_per_node", text);
      }));
  f.back().why_off =
      off_unless([](const Plan& p) { return p.cluster.network.kind != NetworkKind::kTorus2d; },
                 "a torus2d network joins nodes directly, without NICs to add rails to");
  f.push_back(yaml_field(
      "intra_node.kind", "intra-node fabric", PlanField::Kind::kChoice,
      {"nvlink", "nvswitch", "pcie_tree"},
      [](const WhatIf& w) {
        return std::string(core::intra_node_kind_name(w.plan.cluster.intra_fabric.kind));
      },
      [](YAML::Node& root, const Plan& plan, const std::string& text) {
        YAML::Node in = yaml_at(root, {"cluster", "intra_node"});
        in["kind"] = text;
        const core::IntraNodeFabric& fabric = plan.cluster.intra_fabric;
        if (text != "pcie_tree") {
          for (const char* key : {"gpus_per_switch", "uplink", "socket_link"}) in.remove(key);
        } else if (!in["gpus_per_switch"]) {
          // One PCIe switch for the node's devices, its uplink as fast as their links, until
          // the user says otherwise.
          int g =
              fabric.gpus_per_switch > 0 ? fabric.gpus_per_switch : plan.cluster.devices_per_node;
          in["gpus_per_switch"] = g;
          bool has_uplink = fabric.switch_uplink.bandwidth > 0;
          in["uplink"] = link_node(has_uplink ? fabric.switch_uplink : plan.cluster.intra_node);
        }
      }));
  auto pcie_only = off_unless(
      [](const Plan& p) { return p.cluster.intra_fabric.kind == core::IntraNodeKind::kPcieTree; },
      "applies to intra-node fabric pcie_tree");
  f.push_back(yaml_text(
      "intra_node.gpus_per_switch", "devices per PCIe switch",
      [](const WhatIf& w) {
        int g = w.plan.cluster.intra_fabric.gpus_per_switch;
        return g > 0 ? std::to_string(g) : std::string();
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(yaml_at(root, {"cluster", "intra_node"}), "gpus_per_switch", text);
      }));
  f.back().why_off = pcie_only;
  f.push_back(yaml_text(
      "intra_node.uplink", "PCIe switch uplink",
      [](const WhatIf& w) {
        double b = w.plan.cluster.intra_fabric.switch_uplink.bandwidth;
        return b > 0 ? format_bytes_per_s(b) : std::string();
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(yaml_at(root, {"cluster", "intra_node", "uplink"}), "bandwidth", text);
      }));
  f.back().why_off = pcie_only;
}

YAML::Node transport_map(YAML::Node& root) { return yaml_at(root, {"cluster", "transport"}); }

// The wire protocol between hosts: TCP's window (not over RDMA) and MPI's eager limit.
void add_transport_fields(std::vector<PlanField>& f) {
  f.push_back(yaml_field(
      "transport.kind", "transport", PlanField::Kind::kChoice, {"tcp", "rdma"},
      [](const WhatIf& w) {
        return std::string(w.plan.cluster.transport.kind == core::TransportKind::kRdma ? "rdma"
                                                                                       : "tcp");
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        YAML::Node t = transport_map(root);
        t["kind"] = text;
        if (text == "rdma") t.remove("window");
      }));
  f.back().hint = "tcp: each flow moves at most a window per round trip; rdma: no window";
  f.push_back(yaml_text(
      "transport.window", "TCP window",
      [](const WhatIf& w) { return core::format_bytes(w.plan.cluster.transport.window); },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(transport_map(root), "window", text);
      },
      at_least_64kib("transport.window",
                     [](const Plan& p) { return p.cluster.transport.window; })));
  f.back().why_off = off_unless(
      [](const Plan& p) { return p.cluster.transport.kind == core::TransportKind::kTcp; },
      "applies to transport tcp");
  f.push_back(yaml_text(
      "transport.eager_limit", "eager limit",
      [](const WhatIf& w) {
        double limit = w.plan.cluster.transport.eager_limit;
        return limit >= 0 ? core::format_bytes(limit) : std::string();
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(transport_map(root), "eager_limit", text);
      }));
  f.back().hint =
      "MPI's eager/rendezvous switch: a message between nodes above it waits a round trip; "
      "empty: none (NCCL, Gloo)";
}

}  // namespace

void add_network_fields(std::vector<PlanField>& f) {
  add_node_fabric_fields(f);
  add_network_kind_fields(f);
  add_transport_fields(f);
}

}  // namespace scaleout::gui
