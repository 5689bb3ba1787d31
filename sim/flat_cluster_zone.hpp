// The whole platform as one SimGrid zone when the network is one switch that each node reaches
// by one NIC a rail and each device has one link to its node's centre (the default node fabric):
// a route is computed from the two devices' nodes and rails (device link up, the NICs when the
// nodes or rails differ, device link down) instead of going through a zone per node and rail.
//
// Why: SimGrid 3.32 seals a zone by scanning every host of the engine, so a zone per node made
// sealing quadratic (53% of the CPU of a 32,768-rank ring). The links, their order in a route and
// the order their latencies are summed in are those of the per-node zones, so the answers are the
// same to the last bit.
#pragma once

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "core/plan/topology.hpp"
#include "sim/platform.hpp"

namespace scaleout::sim {

// True when `topo` can be simulated as a FlatClusterZone.
bool flat_cluster_fits(const core::Topology& topo, int lone_switch);

class FlatClusterZone : public simgrid::kernel::routing::NetZoneImpl {
 public:
  explicit FlatClusterZone(const std::string& name) : NetZoneImpl(name) {}

  // One direction of a split-duplex link, with its latency.
  struct Way {
    simgrid::kernel::resource::StandardLinkImpl* link = nullptr;
    double latency = 0;
  };
  // Builds hosts and links of `topo` in this zone (which must be the platform's root). Returns
  // the hosts by device, and fills `rail_hosts` [rail][device] (rail 0: the devices' hosts).
  std::vector<simgrid::s4u::Host*> build(const core::Topology& topo,
                                         std::vector<std::vector<simgrid::s4u::Host*>>& rail_hosts);

  // The checkpoints' storage behind its link, attached to the switch. REQUIRES: build() first.
  simgrid::s4u::Host* add_storage(const StorageLinkSpec& spec);

  void get_local_route(const simgrid::kernel::routing::NetPoint* src,
                       const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

 private:
  struct Device {
    int node = 0;  // kStorage: the storage host
    int rail = 0;  // the NIC its transfers between nodes take (a stand-in host's rail)
    Way up, down;  // its link towards the node's centre, and back
  };
  void remember(simgrid::s4u::Host* host, const Device& device);
  void make_nic_links(const core::Topology& topo);

  static constexpr int kStorage = -1;
  void route_storage(const Device& from, const Device& to, simgrid::kernel::routing::Route* into,
                     double* latency) const;

  int rails_ = 1;
  std::vector<Device> by_netpoint_;    // by the host's netpoint id in this zone
  std::vector<Way> nic_out_, nic_in_;  // by node x rails + rail: towards the switch, and back
};

}  // namespace scaleout::sim
