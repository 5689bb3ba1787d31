#include "sim/platform.hpp"

#include <cassert>
#include <stdexcept>
#include <xbt/config.hpp>

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;

void configure_network_model(const std::string& model) {
  if (model == "cm02") {
    sg4::Engine::set_config("network/model:CM02");
    // CM02 is the model without corrections: no reverse-path load for acknowledgements either.
    sg4::Engine::set_config("network/crosstraffic:0");
  } else if (model == "ib") {
    sg4::Engine::set_config("network/model:IB");
  } else if (model == "lv08") {
    sg4::Engine::set_config("network/model:LV08");
    // LV08 keeps its latency and bandwidth corrections and its cross traffic, but not weight-S,
    // which adds S/bandwidth per link to each flow's sharing penalty to mimic TCP Reno's bias
    // against long routes; Linux's default CUBIC has far less of it. On the emulated two-rack
    // cluster it starved rack-crossing flows that measured runs show sharing evenly (step-time
    // error: ring +10% -> 0%, PS +16% -> +8%). SimGrid still weights sharing by route latency.
    sg4::Engine::set_config("network/weight-S:0");
  } else {
    throw std::invalid_argument("unknown network model '" + model + "'");
  }
}

double model_latency_factor() {
  // Each model sets this option's default (LV08: 13.01, CM02: 1).
  return simgrid::config::get_value<double>("network/latency-factor");
}

SimPlatform build_platform(const core::Topology& topo) {
  SimPlatform out;
  auto* world = sg4::create_dijkstra_zone("world", /*cache=*/true);
  const auto& links = topo.links();

  // Each vertex outside a node (a switch) and each node is a zone with a gateway router.
  std::vector<sg4::NetZone*> zone_of(topo.num_vertices(), nullptr);
  std::vector<simgrid::kernel::routing::NetPoint*> gateway_of(topo.num_vertices(), nullptr);
  out.device_hosts.resize(topo.num_devices());

  for (int n = 0; n < topo.num_nodes(); ++n) {
    int gv = topo.gateway_vertex(n);
    const std::string& name = topo.vertex(gv).name;
    auto* zone = sg4::create_star_zone(name);
    zone->set_parent(world);
    auto* gw = zone->create_router(name + "-gw");
    for (int d = topo.first_device(n); d < topo.first_device(n) + topo.devices_on_node(n); ++d) {
      int dv = topo.device_vertex(d);
      auto* host = zone->create_host(topo.vertex(dv).name, topo.device_flops(d));
      const core::LinkInfo& link = links[topo.device_link(d)];
      auto* l = zone->create_split_duplex_link(link.name, link.bandwidth)
                    ->set_latency(link.latency)
                    ->seal();
      zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                      {sg4::LinkInRoute(l, sg4::LinkInRoute::Direction::UP)}, true);
      out.device_hosts[d] = host;
    }
    zone->seal();
    zone_of[gv] = zone;
    gateway_of[gv] = gw;
  }
  for (int sv : topo.switch_vertices()) {
    auto* zone = sg4::create_star_zone(topo.vertex(sv).name + "-zone");
    zone->set_parent(world);
    gateway_of[sv] = zone->create_router(topo.vertex(sv).name);
    zone->seal();
    zone_of[sv] = zone;
  }
  for (const auto& link : links) {
    if (link.cls == core::LinkClass::kIntraNode) continue;
    auto* l = world->create_split_duplex_link(link.name, link.bandwidth)
                  ->set_latency(link.latency)
                  ->seal();
    // UP is the direction from `a` to `b`; the symmetrical route uses DOWN.
    world->add_route(zone_of[link.a]->get_netpoint(), zone_of[link.b]->get_netpoint(),
                     gateway_of[link.a], gateway_of[link.b],
                     {sg4::LinkInRoute(l, sg4::LinkInRoute::Direction::UP)}, true);
  }
  world->seal();
  return out;
}

}  // namespace scaleout::sim
