#include "exec/emulated_cluster.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "exec/cluster_state.hpp"

namespace scaleout::exec {

namespace fs = std::filesystem;

namespace {

const char* kSwitchNs = "so-switches";

// Runs a command; returns its output. Throws with the command and its output when it fails.
std::string sh(const std::string& cmd) {
  std::string out;
  FILE* pipe = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run: " + cmd);
  std::array<char, 512> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  int status = ::pclose(pipe);
  if (status != 0) throw std::runtime_error("emulated cluster: '" + cmd + "' failed: " + out);
  return out;
}

// tc wants bits per second; tbf's burst must hold at least one timer tick of traffic.
std::string tbf(double bytes_per_s) {
  long bits = static_cast<long>(bytes_per_s * 8);
  long burst = std::max<long>(32 * 1024, static_cast<long>(bytes_per_s / 250));
  return "tbf rate " + std::to_string(bits) + "bit burst " + std::to_string(burst) +
         " latency 50ms";
}

std::string in_ns(const std::string& ns, const std::string& cmd) {
  return "ip netns exec " + ns + " " + cmd;
}

// Node n's address on rail r: a subnet per rail (10.77/16, 10.78/16, ...).
std::string rail_ip(int n, int r) {
  return "10." + std::to_string(77 + r) + "." + std::to_string(n / 250) + "." +
         std::to_string(n % 250 + 1);
}

// Which of node `node`'s rails link `link` is (0 without rails).
int rail_of(const core::Topology& topo, int node, int link) {
  for (int r = 1; r < topo.rails(); ++r)
    if (topo.nic_link(node, r) == link) return r;
  return 0;
}

}  // namespace

std::string emulation_unavailable() {
  if (::geteuid() != 0) return "the emulated cluster needs root (network namespaces and tc)";
  if (std::system("ip netns list > /dev/null 2>&1") != 0) return "'ip netns' is not available";
  if (std::system("tc -V > /dev/null 2>&1") != 0) return "'tc' is not available";
  return "";
}

std::vector<std::string> emulation_leftovers() {
  std::vector<std::string> left;
  for (const auto& o : ClusterState::load().leftovers()) left.push_back(o.what());
  return left;
}

void cluster_down() { ClusterState::load().remove_all(); }

namespace {

// Makes the bridges (the switches, in the switches' namespace) and one namespace per node.
std::map<int, std::string> make_switches_and_nodes(const core::Topology& topo, ClusterState& state,
                                                   EmulatedCluster& cluster) {
  state.record({ClusterObject::Kind::kNamespace, kSwitchNs});
  sh("ip netns add " + std::string(kSwitchNs));
  sh(in_ns(kSwitchNs, "ip link set lo up"));
  std::map<int, std::string> bridge_of;
  int b = 0;
  for (int sv : topo.switch_vertices()) {
    std::string br = "sobr" + std::to_string(b++);  // inside so-switches: goes with it
    sh(in_ns(kSwitchNs, "ip link add " + br + " type bridge"));
    sh(in_ns(kSwitchNs, "ip link set " + br + " up"));
    bridge_of[sv] = br;
  }
  for (int n = 0; n < topo.num_nodes(); ++n) {
    std::string ns = "so-n" + std::to_string(n);
    state.record({ClusterObject::Kind::kNamespace, ns});
    sh("ip netns add " + ns);
    sh(in_ns(ns, "ip link set lo up"));
    cluster.node_netns.push_back(ns);
    cluster.node_ip.push_back(rail_ip(n, 0));
    cluster.node_rail_ip.emplace_back();
    for (int r = 1; r < topo.rails(); ++r) cluster.node_rail_ip.back().push_back(rail_ip(n, r));
    if (topo.rails() > 1) {
      // Rails of a node share its switch: each NIC answers ARP for its own address only, or the
      // switch could send one rail's traffic down another rail's link.
      // Written to /proc rather than through sysctl(8), which a minimal machine may not have.
      sh(in_ns(ns, "sh -c 'echo 1 > /proc/sys/net/ipv4/conf/all/arp_ignore'"));
      sh(in_ns(ns, "sh -c 'echo 2 > /proc/sys/net/ipv4/conf/all/arp_announce'"));
    }
  }
  return bridge_of;
}

// One veth pair per network link, its ends moved into the namespaces they join, rate-limited.
void make_links(const core::Topology& topo, ClusterState& state, EmulatedCluster& cluster,
                const std::map<int, std::string>& bridge_of) {
  int v = 0;
  for (int index = 0; index < static_cast<int>(topo.links().size()); ++index) {
    const auto& link = topo.links()[index];
    if (link.cls == core::LinkClass::kIntraNode) continue;  // devices of a node share its namespace
    const auto& a = topo.vertex(link.a);
    const auto& bv = topo.vertex(link.b);
    if (a.kind == core::VertexKind::kGateway && bv.kind == core::VertexKind::kGateway)
      throw std::runtime_error(
          "emulated cluster: node-to-node links (torus) are not supported; use a switch or "
          "two_tier network");
    std::string end_a = "sov" + std::to_string(v) + "a", end_b = "sov" + std::to_string(v) + "b";
    ++v;
    state.record({ClusterObject::Kind::kLink, end_a});
    state.record({ClusterObject::Kind::kLink, end_b});
    sh("ip link add " + end_a + " type veth peer name " + end_b);
    // Endpoint a: a node (its NIC) or a switch; endpoint b: a switch here (two_tier, switch).
    auto place = [&](const core::TopoVertex& vertex, int vid, const std::string& dev) {
      if (vertex.kind == core::VertexKind::kGateway) {
        std::string ns = cluster.node_netns[vertex.node];
        sh("ip link set " + dev + " netns " + ns);
        std::string ip = rail_ip(vertex.node, rail_of(topo, vertex.node, index));
        sh(in_ns(ns, "ip addr add " + ip + "/16 dev " + dev));
        sh(in_ns(ns, "ip link set " + dev + " up"));
        sh(in_ns(ns, "tc qdisc add dev " + dev + " root " + tbf(link.bandwidth)));
      } else {
        sh("ip link set " + dev + " netns " + kSwitchNs);
        sh(in_ns(kSwitchNs, "ip link set " + dev + " master " + bridge_of.at(vid)));
        sh(in_ns(kSwitchNs, "ip link set " + dev + " up"));
        sh(in_ns(kSwitchNs, "tc qdisc add dev " + dev + " root " + tbf(link.bandwidth)));
      }
    };
    place(a, link.a, end_a);
    place(bv, link.b, end_b);
  }
}

}  // namespace

EmulatedCluster cluster_up(const core::Topology& topo, const std::string& name) {
  std::string why = emulation_unavailable();
  if (!why.empty()) throw std::runtime_error(why);
  ClusterState state = ClusterState::load();
  auto left = state.remove_all();  // start from nothing: what an earlier cluster left
  if (!left.empty())
    throw std::runtime_error("emulated cluster: cannot remove the earlier cluster's " +
                             left.front().what());
  EmulatedCluster cluster;
  try {
    auto bridge_of = make_switches_and_nodes(topo, state, cluster);
    make_links(topo, state, cluster, bridge_of);
    cluster.name = name;
    for (int n = 0; n < topo.num_nodes(); ++n)
      cluster.node_devices.push_back(topo.devices_on_node(n));
    for (const auto& link : topo.links())
      if (link.cls != core::LinkClass::kIntraNode)
        cluster.link_bandwidth[link.name] = link.bandwidth;
    state.complete({{"node_netns", cluster.node_netns},
                    {"node_ip", cluster.node_ip},
                    {"node_rail_ip", cluster.node_rail_ip},
                    {"name", cluster.name},
                    {"node_devices", cluster.node_devices},
                    {"link_bandwidth", cluster.link_bandwidth}});
  } catch (...) {
    state.remove_all();
    throw;
  }
  return cluster;
}

std::optional<EmulatedCluster> current_cluster() {
  nlohmann::json state = ClusterState::load().cluster();
  if (!state.is_object()) return std::nullopt;  // none, or an interrupted `cluster up`
  EmulatedCluster c{state.value("node_netns", std::vector<std::string>{}),
                    state.value("node_ip", std::vector<std::string>{}),
                    state.value("node_rail_ip", std::vector<std::vector<std::string>>{}),
                    state.value("name", std::string()),
                    state.value("node_devices", std::vector<int>{}),
                    state.value("link_bandwidth", std::map<std::string, double>{})};
  for (const auto& ns : c.node_netns)
    if (!fs::exists("/var/run/netns/" + ns)) return std::nullopt;
  return c;
}

std::string topology_mismatch(const EmulatedCluster& built, const core::Topology& plan_topo,
                              const std::string& plan_name, const std::string& calibrated_from) {
  if (built.node_devices.empty()) return "";  // an older state file: nothing to compare
  std::string both =
      "the plan's topology '" + plan_name + "' is not the emulated cluster '" + built.name + "': ";
  if (plan_topo.num_nodes() > static_cast<int>(built.node_devices.size()))
    return both + "it has " + std::to_string(plan_topo.num_nodes()) + " nodes, the cluster " +
           std::to_string(built.node_devices.size());
  for (int n = 0; n < plan_topo.num_nodes(); ++n)
    if (plan_topo.devices_on_node(n) != built.node_devices[n])
      return both + "node " + std::to_string(n) + " has " +
             std::to_string(plan_topo.devices_on_node(n)) + " devices in the plan, " +
             std::to_string(built.node_devices[n]) + " in the cluster";
  for (const auto& link : plan_topo.links()) {
    if (link.cls == core::LinkClass::kIntraNode) continue;
    auto it = built.link_bandwidth.find(link.name);
    if (it == built.link_bandwidth.end())
      return both + "the cluster has no link '" + link.name + "'";
    bool measured_here = !calibrated_from.empty() && calibrated_from == built.name;
    if (!measured_here && std::fabs(it->second - link.bandwidth) > 1e-6 * link.bandwidth)
      return both + "link '" + link.name + "' runs at " + std::to_string(link.bandwidth * 8 / 1e6) +
             " Mb/s in the plan, " + std::to_string(it->second * 8 / 1e6) + " Mb/s in the cluster";
  }
  return "";
}

}  // namespace scaleout::exec
