#include "sim/flat_cluster_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>

#include "sim/node_zones.hpp"

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::Route;

bool flat_cluster_fits(const core::Topology& topo, int lone_switch) {
  if (lone_switch < 0) return false;
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

std::vector<sg4::Host*> FlatClusterZone::build(const core::Topology& topo,
                                               std::vector<std::vector<sg4::Host*>>& rail_hosts) {
  sg4::NetZone* zone = get_iface();
  rails_ = topo.rails();
  std::vector<sg4::Host*> hosts(topo.num_devices(), nullptr);
  std::vector<Device> devices(topo.num_devices());
  for (int d = 0; d < topo.num_devices(); ++d) {
    hosts[d] = zone->create_host(topo.vertex(topo.device_vertex(d)).name, topo.device_flops(d));
    const core::Hop& hop = topo.device_chain(d).front();
    const core::LinkInfo& info = topo.links()[hop.link];
    auto* link = make_link(zone, info);
    devices[d] = {topo.node_of_device(d), 0, way(link, hop.forward, info.latency),
                  way(link, !hop.forward, info.latency)};
    remember(hosts[d], devices[d]);
  }
  // Rails 1..: a stand-in host per device whose transfers leave its node over that rail's NIC,
  // as in the rail zones of a zone per node.
  rail_hosts.assign(rails_, hosts);
  for (int n = 0; n < topo.num_nodes(); ++n)
    for (int r = 1; r < rails_; ++r)
      for (int d = topo.first_device(n); d < topo.first_device(n) + topo.devices_on_node(n); ++d) {
        std::string name = topo.vertex(topo.device_vertex(d)).name + "-rail" + std::to_string(r);
        rail_hosts[r][d] = zone->create_host(name, topo.device_flops(d));
        Device stand_in = devices[d];
        stand_in.rail = r;
        remember(rail_hosts[r][d], stand_in);
      }
  make_nic_links(topo);
  return hosts;
}

void FlatClusterZone::remember(sg4::Host* host, const Device& device) {
  std::size_t id = host->get_netpoint()->id();
  if (by_netpoint_.size() <= id) by_netpoint_.resize(id + 1);
  by_netpoint_[id] = device;
}

// In the order of the topology's links, as the network's links of a zone per node are made.
void FlatClusterZone::make_nic_links(const core::Topology& topo) {
  std::vector<std::pair<int, int>> nic_of(topo.links().size(), {-1, -1});  // link -> node, rail
  for (int n = 0; n < topo.num_nodes(); ++n)
    for (int r = 0; r < rails_; ++r) nic_of[topo.nic_link(n, r)] = {n, r};
  nic_out_.resize(static_cast<std::size_t>(topo.num_nodes()) * rails_);
  nic_in_.resize(nic_out_.size());
  for (std::size_t i = 0; i < topo.links().size(); ++i) {
    auto [n, r] = nic_of[i];
    if (n < 0) continue;
    const core::LinkInfo& info = topo.links()[i];
    auto* link = make_link(get_iface(), info);
    bool out_is_up = info.a == topo.gateway_vertex(n);  // else the link runs switch -> node
    nic_out_[n * rails_ + r] = way(link, out_is_up, info.latency);
    nic_in_[n * rails_ + r] = way(link, !out_is_up, info.latency);
  }
}

sg4::Host* FlatClusterZone::add_storage(const StorageLinkSpec& spec) {
  auto* host = get_iface()->create_host("storage", 1e9);
  auto* link = make_storage_link(get_iface(), spec);
  // Its `up` way is the one into the switch (reads, DOWN), `down` the one to it (writes, UP).
  Device storage{kStorage, 0, way(link, false, spec.latency), way(link, true, spec.latency)};
  remember(host, storage);
  return host;
}

// To the storage: the device's link up, its NIC on its rail, the storage link; and back.
void FlatClusterZone::route_storage(const Device& from, const Device& to, Route* into,
                                    double* latency) const {
  const bool writing = to.node == kStorage;
  const Device& device = writing ? from : to;
  const Way& nic = writing ? nic_out_[device.node * rails_ + device.rail]
                           : nic_in_[device.node * rails_ + device.rail];
  if (latency) *latency += nic.latency + from.up.latency + to.down.latency;
  into->link_list_.push_back(from.up.link);
  into->link_list_.push_back(nic.link);
  into->link_list_.push_back(to.down.link);
}

// The links and the latency sum in the order SimGrid's zone hierarchy gave them: the network's
// part (the NICs) is summed first, then the source's node part, then the destination's.
void FlatClusterZone::get_local_route(const NetPoint* src, const NetPoint* dst, Route* into,
                                      double* latency) {
  const Device& from = by_netpoint_.at(src->id());
  const Device& to = by_netpoint_.at(dst->id());
  if (from.node == kStorage || to.node == kStorage) return route_storage(from, to, into, latency);
  // Hosts of one node on one rail meet inside the node; any other pair crosses the switch
  // (a zone per node and per rail routes them through the star's center).
  bool across = from.node != to.node || from.rail != to.rail;
  const Way& out = nic_out_[from.node * rails_ + from.rail];
  const Way& in = nic_in_[to.node * rails_ + to.rail];
  if (latency) {
    if (across) {
      *latency += out.latency;
      *latency += in.latency;
    }
    *latency += from.up.latency;
    *latency += to.down.latency;
  }
  into->link_list_.push_back(from.up.link);
  if (across) {
    into->link_list_.push_back(out.link);
    into->link_list_.push_back(in.link);
  }
  into->link_list_.push_back(to.down.link);
}

}  // namespace scaleout::sim
