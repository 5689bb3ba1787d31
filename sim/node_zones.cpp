#include "sim/node_zones.hpp"

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <string>

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;
using Direction = sg4::LinkInRoute::Direction;

namespace {

// A hop of the topology as SimGrid's route element: UP is the direction from the link's `a`
// end to its `b` end.
sg4::LinkInRoute in_route(const std::vector<sg4::Link*>& links, const core::Hop& h) {
  return sg4::LinkInRoute(links[h.link], h.forward ? Direction::UP : Direction::DOWN);
}

std::vector<sg4::LinkInRoute> route_of(const std::vector<sg4::Link*>& links,
                                       const std::vector<core::Hop>& hops, bool reversed) {
  std::vector<sg4::LinkInRoute> out;
  if (!reversed) {
    for (const auto& h : hops) out.push_back(in_route(links, h));
  } else {
    for (auto h = hops.rbegin(); h != hops.rend(); ++h)
      out.push_back(in_route(links, core::Hop{h->link, !h->forward}));
  }
  return out;
}

// Makes the links of every device's chain that are not made yet.
void make_chain_links(sg4::NetZone* zone, const core::Topology& topo, int d,
                      std::vector<sg4::Link*>& links) {
  for (const auto& h : topo.device_chain(d))
    if (!links[h.link]) links[h.link] = make_link(zone, topo.links()[h.link]);
}

bool star_shaped(const core::Topology& topo, int n) {
  for (int d = topo.first_device(n); d < topo.first_device(n) + topo.devices_on_node(n); ++d)
    if (topo.device_chain(d).size() != 1) return false;
  return true;
}

}  // namespace

sg4::SplitDuplexLink* make_link(sg4::NetZone* zone, const core::LinkInfo& link) {
  auto* made = zone->create_split_duplex_link(link.name, link.bandwidth);
  made->set_latency(link.latency)->seal();
  return made;
}

sg4::SplitDuplexLink* make_storage_link(sg4::NetZone* zone, const StorageLinkSpec& spec) {
  auto* link = zone->create_split_duplex_link("storage-link", spec.write_bandwidth);
  link->set_latency(spec.latency);
  link->get_link_down()->set_bandwidth(spec.read_bandwidth > 0 ? spec.read_bandwidth
                                                               : spec.write_bandwidth);
  link->seal();
  return link;
}

void use_models_of(sg4::NetZone* parent, sg4::NetZone* zone) {
  auto* from = parent->get_impl();
  auto* to = zone->get_impl();
  to->set_network_model(from->get_network_model());
  to->set_cpu_pm_model(from->get_cpu_pm_model());
  to->set_cpu_vm_model(from->get_cpu_vm_model());
  to->set_disk_model(from->get_disk_model());
  to->set_host_model(from->get_host_model());
}

NodeZone build_device_zone(const core::Topology& topo, int n, std::vector<sg4::Host*>& hosts,
                           std::vector<sg4::Link*>& device_links, sg4::NetZone* world) {
  const std::string& name = topo.vertex(topo.gateway_vertex(n)).name;
  int first = topo.first_device(n), end = first + topo.devices_on_node(n);
  bool star = star_shaped(topo, n);
  // A star routes through its center; a PCIe tree needs its routes given pair by pair.
  auto* zone = star ? sg4::create_star_zone(name) : sg4::create_full_zone(name);
  use_models_of(world, zone);
  auto* gw = zone->create_router(name + "-gw");
  for (int d = first; d < end; ++d) {
    hosts[d] = zone->create_host(topo.vertex(topo.device_vertex(d)).name, topo.device_flops(d));
    make_chain_links(zone, topo, d, device_links);
  }
  for (int d = first; d < end; ++d) {
    const auto& chain = topo.device_chain(d);
    if (star) {
      zone->add_route(hosts[d]->get_netpoint(), nullptr, nullptr, nullptr,
                      route_of(device_links, chain, false), true);
      continue;
    }
    zone->add_route(hosts[d]->get_netpoint(), gw, nullptr, nullptr,
                    route_of(device_links, chain, false), false);
    zone->add_route(gw, hosts[d]->get_netpoint(), nullptr, nullptr,
                    route_of(device_links, chain, true), false);
    for (int e = first; e < end; ++e)
      if (e != d)
        zone->add_route(hosts[d]->get_netpoint(), hosts[e]->get_netpoint(), nullptr, nullptr,
                        route_of(device_links, topo.device_path(d, e).hops, false), false);
  }
  return {zone, gw};
}

NodeZone build_rail_zone(const core::Topology& topo, int n, int rail,
                         std::vector<sg4::Host*>& hosts,
                         const std::vector<sg4::Link*>& device_links, sg4::NetZone* world) {
  std::string name = topo.vertex(topo.gateway_vertex(n)).name + "-rail" + std::to_string(rail);
  auto* zone = sg4::create_star_zone(name);
  use_models_of(world, zone);
  auto* gw = zone->create_router(name + "-gw");
  int first = topo.first_device(n), end = first + topo.devices_on_node(n);
  for (int d = first; d < end; ++d) {
    std::string host = topo.vertex(topo.device_vertex(d)).name + "-rail" + std::to_string(rail);
    hosts[d] = zone->create_host(host, topo.device_flops(d));
    // Only ever routed to the gateway: the star's center stands for it.
    zone->add_route(hosts[d]->get_netpoint(), nullptr, nullptr, nullptr,
                    route_of(device_links, topo.device_chain(d), false), true);
  }
  return {zone, gw};
}

}  // namespace scaleout::sim
