// An emulated cluster on one Linux machine: one network namespace per node, veth pairs into Linux
// bridges (the switches, inside a namespace of their own), and `tc tbf` rate limits from the
// topology's link bandwidths, so real TCP traffic feels the topology's bottlenecks. Needs root.
// Everything it makes is named with the prefix "so-" / "so" and removed by cluster_down().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/topology.hpp"

namespace scaleout::exec {

struct EmulatedCluster {
  std::vector<std::string> node_netns;  // namespace of each node, by node index
  std::vector<std::string> node_ip;     // its address on the cluster network
};

// Why the emulated cluster cannot be used here ("" when it can): not root, or no `ip`/`tc`.
std::string emulation_unavailable();

// Builds the cluster for `topo` (switch and two_tier networks). On any failure removes what it
// made and throws std::runtime_error naming the command that failed. Records the cluster in a state
// file so that later runs find it.
EmulatedCluster cluster_up(const core::Topology& topo);

// Removes every namespace, bridge and veth the emulated cluster made, and the state file. Safe to
// call when nothing is up.
void cluster_down();

// The cluster recorded by the last cluster_up, if it is still up.
std::optional<EmulatedCluster> current_cluster();

// Names of leftovers (namespaces starting "so-"), for checks that cleanup was complete.
std::vector<std::string> emulation_leftovers();

}  // namespace scaleout::exec
