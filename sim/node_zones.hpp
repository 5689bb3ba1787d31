// SimGrid zones for what lies inside a node: its devices and the links between them (a star, or
// a PCIe tree with explicit routes), and for each extra rail a zone of stand-in hosts whose
// routes leave the node over that rail's NIC.
#pragma once

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u.hpp>
#include <utility>
#include <vector>

#include "core/plan/topology.hpp"
#include "sim/platform.hpp"

namespace scaleout::sim {

struct NodeZone {
  simgrid::s4u::NetZone* zone = nullptr;
  simgrid::kernel::routing::NetPoint* gateway = nullptr;
};

// Node n's zone with its devices' hosts (stored in `hosts` by device), not attached to a parent.
// Each device link is made once here and recorded in `device_links` (by link index) for the rail
// zones to share. `world` lends the detached zone its models.
NodeZone build_device_zone(const core::Topology& topo, int n,
                           std::vector<simgrid::s4u::Host*>& hosts,
                           std::vector<simgrid::s4u::Link*>& device_links,
                           simgrid::s4u::NetZone* world);

// Rail r (>= 1) of node n: one stand-in host per device, its route to the rail's gateway being
// the device's own links inside the node (the same link objects: a striped transfer loads them
// once per rail). Stand-ins carry no actors; transfers run between them by Comm::sendto.
NodeZone build_rail_zone(const core::Topology& topo, int n, int rail,
                         std::vector<simgrid::s4u::Host*>& hosts,
                         const std::vector<simgrid::s4u::Link*>& device_links,
                         simgrid::s4u::NetZone* world);

// The topology's link as a SimGrid link of `zone`, both directions at the link's rate and latency.
simgrid::s4u::SplitDuplexLink* make_link(simgrid::s4u::NetZone* zone, const core::LinkInfo& link);

// The link to the checkpoints' storage (sim/platform.hpp's StorageLinkSpec): UP runs towards the
// storage at the write rate, DOWN back at the read rate (the write rate when none is given).
simgrid::s4u::SplitDuplexLink* make_storage_link(simgrid::s4u::NetZone* zone,
                                                 const StorageLinkSpec& spec);

// What set_parent would give `zone`: the models that create its hosts and links.
void use_models_of(simgrid::s4u::NetZone* parent, simgrid::s4u::NetZone* zone);

}  // namespace scaleout::sim
