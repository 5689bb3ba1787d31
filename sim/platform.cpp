#include "sim/platform.hpp"

#include <cassert>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
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

namespace {

// What set_parent would give `zone`: the models that create its hosts and links.
void use_models_of(sg4::NetZone* parent, sg4::NetZone* zone) {
  auto* from = parent->get_impl();
  auto* to = zone->get_impl();
  to->set_network_model(from->get_network_model());
  to->set_cpu_pm_model(from->get_cpu_pm_model());
  to->set_cpu_vm_model(from->get_cpu_vm_model());
  to->set_disk_model(from->get_disk_model());
  to->set_host_model(from->get_host_model());
}

// Node `n`: a star zone of its devices, each with its link to the node's gateway router. The
// zone is not attached to `world` (see build_platform).
std::pair<sg4::NetZone*, simgrid::kernel::routing::NetPoint*> build_node_zone(
    sg4::NetZone* world, const core::Topology& topo, int n, SimPlatform& out) {
  const std::string& name = topo.vertex(topo.gateway_vertex(n)).name;
  auto* zone = sg4::create_star_zone(name);
  use_models_of(world, zone);
  auto* gw = zone->create_router(name + "-gw");
  for (int d = topo.first_device(n); d < topo.first_device(n) + topo.devices_on_node(n); ++d) {
    auto* host = zone->create_host(topo.vertex(topo.device_vertex(d)).name, topo.device_flops(d));
    const core::LinkInfo& link = topo.links()[topo.device_link(d)];
    auto* l = zone->create_split_duplex_link(link.name, link.bandwidth)
                  ->set_latency(link.latency)
                  ->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(l, sg4::LinkInRoute::Direction::UP)}, true);
    out.device_hosts[d] = host;
  }
  return {zone, gw};
}

// The switch when the network is one switch that every node reaches by one NIC link: the world is
// then a star (routes without a search); -1 otherwise (the world routes by Dijkstra).
int lone_switch(const core::Topology& topo) {
  if (topo.switch_vertices().size() != 1) return -1;
  int sw = topo.switch_vertices().front();
  std::vector<int> nics(topo.num_vertices(), 0);
  for (const auto& link : topo.links()) {
    if (link.cls == core::LinkClass::kIntraNode) continue;
    if (link.cls != core::LinkClass::kNic || (link.a != sw && link.b != sw)) return -1;
    ++nics[link.a == sw ? link.b : link.a];
  }
  for (int n = 0; n < topo.num_nodes(); ++n)
    if (nics[topo.gateway_vertex(n)] != 1) return -1;
  return sw;
}

struct World {
  sg4::NetZone* zone = nullptr;
  int star_switch = -1;
  std::vector<sg4::NetZone*> zone_of;  // by vertex: node and switch zones
  std::vector<simgrid::kernel::routing::NetPoint*> gateway_of;
};

// Routes between the node zones: through the star's center, or over the switches' zones.
void add_network_routes(World& w, const core::Topology& topo,
                        const std::vector<sg4::Link*>& network_links) {
  const auto& links = topo.links();
  using Direction = sg4::LinkInRoute::Direction;
  if (w.star_switch < 0) {
    for (int sv : topo.switch_vertices()) {
      auto* zone = sg4::create_star_zone(topo.vertex(sv).name + "-zone");
      zone->set_parent(w.zone);
      w.gateway_of[sv] = zone->create_router(topo.vertex(sv).name);
      zone->seal();
      w.zone_of[sv] = zone;
    }
  }
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (!network_links[i]) continue;
    const core::LinkInfo& link = links[i];
    if (w.star_switch >= 0) {  // node -> center; UP is the direction from `a` to `b`
      int gv = link.a == w.star_switch ? link.b : link.a;
      Direction out = link.a == gv ? Direction::UP : Direction::DOWN;
      w.zone->add_route(w.zone_of[gv]->get_netpoint(), nullptr, w.gateway_of[gv], nullptr,
                        {sg4::LinkInRoute(network_links[i], out)}, true);
      continue;
    }
    // UP is the direction from `a` to `b`; the symmetrical route uses DOWN.
    w.zone->add_route(w.zone_of[link.a]->get_netpoint(), w.zone_of[link.b]->get_netpoint(),
                      w.gateway_of[link.a], w.gateway_of[link.b],
                      {sg4::LinkInRoute(network_links[i], Direction::UP)}, true);
  }
}

}  // namespace

SimPlatform build_platform(const core::Topology& topo) {
  SimPlatform out;
  World w;
  w.star_switch = lone_switch(topo);
  w.zone = w.star_switch >= 0 ? sg4::create_star_zone("world")
                              : sg4::create_dijkstra_zone("world", /*cache=*/true);
  const auto& links = topo.links();
  // Each vertex outside a node (a switch) and each node is a zone with a gateway router.
  w.zone_of.assign(topo.num_vertices(), nullptr);
  w.gateway_of.assign(topo.num_vertices(), nullptr);
  out.device_hosts.resize(topo.num_devices());

  // Node zones are filled before they join the world: SimGrid looks every new host and link name
  // up in each zone of the world, which made building 2,048 nodes quadratic. Filled apart (with
  // the world's models), they are attached once all exist; names are unique by construction.
  std::vector<sg4::NetZone*> detached;
  for (int n = 0; n < topo.num_nodes(); ++n) {
    int gv = topo.gateway_vertex(n);
    auto [zone, gw] = build_node_zone(w.zone, topo, n, out);
    detached.push_back(zone);
    w.zone_of[gv] = zone;
    w.gateway_of[gv] = gw;
  }
  // The network's links too are made while the world holds no node zone to search.
  std::vector<sg4::Link*> network_links(links.size(), nullptr);
  for (std::size_t i = 0; i < links.size(); ++i)
    if (links[i].cls != core::LinkClass::kIntraNode)
      network_links[i] = w.zone->create_split_duplex_link(links[i].name, links[i].bandwidth)
                             ->set_latency(links[i].latency)
                             ->seal();
  for (auto* zone : detached) zone->set_parent(w.zone);
  add_network_routes(w, topo, network_links);
  w.zone->seal();
  return out;
}

}  // namespace scaleout::sim
