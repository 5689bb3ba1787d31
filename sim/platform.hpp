// Builds a SimGrid platform mirroring a Topology. One switch reached by one NIC per node, with the
// default node fabric: a single zone that computes routes from the devices' nodes
// (sim/flat_cluster_zone.hpp). Otherwise: one zone per node (a star of its devices, or a PCIe
// tree with explicit routes), one zone per switch, and the network links between node and switch
// zones in a star (one switch) or a Dijkstra zone (routes cached per source). Either way route
// computation is per node, not per device, so thousands of ranks build in well under a second.
#pragma once

#include <optional>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "core/model/network_factors.hpp"
#include "core/plan/topology.hpp"

namespace scaleout::sim {

struct SimPlatform {
  std::vector<simgrid::s4u::Host*> device_hosts;  // by device index
  // [rail][device]: the host a transfer between nodes leaves from or arrives at on that rail
  // (rail 0: device_hosts; the others stand-ins without actors).
  std::vector<std::vector<simgrid::s4u::Host*>> rail_hosts;
  // Where checkpoints go (nullptr: no storage asked, or no switch to attach it to).
  simgrid::s4u::Host* storage_host = nullptr;
};

// The storage checkpoints are written to: one host behind a link that carries `write_bandwidth`
// towards it and `read_bandwidth` back, attached to a switch of the network (the one closest to
// every node when there are several). Every writer shares that link, and its transfers cross its
// node's NIC and the network on the way, as any other transfer does.
struct StorageLinkSpec {
  double write_bandwidth = 0;  // bytes/s
  double read_bandwidth = 0;   // bytes/s
  double latency = 0;          // s
};

// REQUIRES: a simgrid Engine exists and no platform was loaded yet.
SimPlatform build_platform(const core::Topology& topo, bool flat_zone = true,
                           const std::optional<StorageLinkSpec>& storage = std::nullopt);

// The switch storage attaches to: the one whose farthest node is fewest hops away (the first of
// those tied); -1 for a network without switches.
int storage_switch(const core::Topology& topo);

// Sets SimGrid's network model: "lv08" (TCP-like), "cm02" (no corrections, cross-traffic off),
// "ib"; `latency_factor`, when given, replaces the model's latency factor (SimGrid's
// network/latency-factor). REQUIRES: called before build_platform.
void configure_network_model(const std::string& model,
                             std::optional<double> latency_factor = std::nullopt);

// Latency multiplier that the configured model applies to every message (13.01 for LV08).
double model_latency_factor();

// The factors by message size that SimGrid's IB model applies (its smpi/lat-factor and
// smpi/bw-factor settings), with LV08's cross-traffic.
core::NetworkFactors configured_size_factors();

}  // namespace scaleout::sim
