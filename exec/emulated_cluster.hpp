// An emulated cluster on one Linux machine: one network namespace per node, veth pairs into Linux
// bridges (the switches, inside a namespace of their own), and `tc tbf` rate limits from the
// topology's link bandwidths, so real TCP traffic feels the topology's bottlenecks. Needs root.
// Everything it makes is recorded in a state file (exec/cluster_state.hpp) before it is made, and
// cluster_down() removes exactly what is recorded.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/plan/topology.hpp"

namespace scaleout::exec {

struct EmulatedCluster {
  std::vector<std::string> node_netns;  // namespace of each node, by node index
  std::vector<std::string> node_ip;     // its address on the cluster network
  // With several NICs per node: each node's addresses on rails 1, 2, ... (rail 0's is node_ip),
  // one subnet per rail, so that the kernel sends traffic for a rail's address out of its NIC.
  std::vector<std::vector<std::string>> node_rail_ip;
  // What it emulates (empty when an older state file did not say): its topology's name, each
  // node's devices and each network link's bandwidth (bytes/s) by name.
  std::string name;
  std::vector<int> node_devices;
  std::map<std::string, double> link_bandwidth;
};

// Why the emulated cluster cannot be used here ("" when it can): not root, or no `ip`/`tc`.
std::string emulation_unavailable();

// Builds the cluster for `topo` (switch and two_tier networks; one veth per rail when nodes have
// several NICs). On any failure removes what it
// made and throws std::runtime_error naming the command that failed. Records the cluster in a state
// file so that later runs find it.
EmulatedCluster cluster_up(const core::Topology& topo, const std::string& name = "");

// "" when a plan whose topology is `plan_topo` (named `plan_name`) measures what it describes on
// `built`: every node it uses holds the same devices and every network link it has exists with
// the same bandwidth. Otherwise the first difference, naming both topologies. A topology
// `calibrated_from` the cluster's (calibrate's measured rates: TCP's 95.6% of a tbf link) needs
// the same nodes and links only.
std::string topology_mismatch(const EmulatedCluster& built, const core::Topology& plan_topo,
                              const std::string& plan_name,
                              const std::string& calibrated_from = "");

// Removes every namespace and veth the state file records (bridges live in a recorded namespace),
// also those of an interrupted cluster_up, and then the state file. Nothing else, whatever its
// name. Safe to call when nothing is up.
void cluster_down();

// The cluster recorded by the last cluster_up, if it is still up.
std::optional<EmulatedCluster> current_cluster();

// Recorded objects that still exist ("namespace so-n0", "link sov0a"), for checks that cleanup
// was complete.
std::vector<std::string> emulation_leftovers();

}  // namespace scaleout::exec
