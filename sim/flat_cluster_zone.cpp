#include "sim/flat_cluster_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>

#include "sim/node_zones.hpp"

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::Route;

bool flat_cluster_fits(const core::Topology& topo, int lone_switch) {
  if (lone_switch < 0 || topo.rails() != 1) return false;
  for (int d = 0; d < topo.num_devices(); ++d)
    if (topo.device_chain(d).size() != 1) return false;
  return true;
}

namespace {

// The way along a hop: UP runs from the link's first endpoint to its second.
FlatClusterZone::Way way(const sg4::SplitDuplexLink* link, bool forward, double latency) {
  return {(forward ? link->get_link_up() : link->get_link_down())->get_impl(), latency};
}

}  // namespace

std::vector<sg4::Host*> FlatClusterZone::build(const core::Topology& topo) {
  sg4::NetZone* zone = get_iface();
  std::vector<sg4::Host*> hosts(topo.num_devices(), nullptr);
  for (int d = 0; d < topo.num_devices(); ++d) {
    hosts[d] = zone->create_host(topo.vertex(topo.device_vertex(d)).name, topo.device_flops(d));
    const core::Hop& hop = topo.device_chain(d).front();
    const core::LinkInfo& info = topo.links()[hop.link];
    auto* link = make_link(zone, info);
    std::size_t id = hosts[d]->get_netpoint()->id();
    if (by_netpoint_.size() <= id) by_netpoint_.resize(id + 1);
    by_netpoint_[id] = {topo.node_of_device(d), way(link, hop.forward, info.latency),
                        way(link, !hop.forward, info.latency)};
  }
  nic_out_.resize(topo.num_nodes());
  nic_in_.resize(topo.num_nodes());
  for (int n = 0; n < topo.num_nodes(); ++n) {
    const core::LinkInfo& info = topo.links()[topo.nic_link(n, 0)];
    auto* link = make_link(zone, info);
    bool out_is_up = info.a == topo.gateway_vertex(n);  // else the link runs switch -> node
    nic_out_[n] = way(link, out_is_up, info.latency);
    nic_in_[n] = way(link, !out_is_up, info.latency);
  }
  return hosts;
}

// The links and the latency sum in the order SimGrid's zone hierarchy gave them: the network's
// part (the NICs) is summed first, then the source's node part, then the destination's.
void FlatClusterZone::get_local_route(const NetPoint* src, const NetPoint* dst, Route* into,
                                      double* latency) {
  const Device& from = by_netpoint_.at(src->id());
  const Device& to = by_netpoint_.at(dst->id());
  bool across = from.node != to.node;
  if (latency) {
    if (across) {
      *latency += nic_out_[from.node].latency;
      *latency += nic_in_[to.node].latency;
    }
    *latency += from.up.latency;
    *latency += to.down.latency;
  }
  into->link_list_.push_back(from.up.link);
  if (across) {
    into->link_list_.push_back(nic_out_[from.node].link);
    into->link_list_.push_back(nic_in_[to.node].link);
  }
  into->link_list_.push_back(to.down.link);
}

}  // namespace scaleout::sim
