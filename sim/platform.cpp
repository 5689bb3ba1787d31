#include "sim/platform.hpp"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <stdexcept>
#include <xbt/config.hpp>

#include "sim/flat_cluster_zone.hpp"
#include "sim/node_zones.hpp"

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;

void configure_network_model(const std::string& model, std::optional<double> latency_factor) {
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
  // Set by the user, it outlives the model's own default, which the model sets when it loads.
  if (latency_factor) simgrid::config::set_value<double>("network/latency-factor", *latency_factor);
}

double model_latency_factor() {
  // Each model sets this option's default (LV08: 13.01, CM02: 1).
  return simgrid::config::get_value<double>("network/latency-factor");
}

core::NetworkFactors configured_size_factors() {
  core::NetworkFactors f;
  f.latency = core::parse_size_steps(simgrid::config::get_value<std::string>("smpi/lat-factor"));
  f.bandwidth = core::parse_size_steps(simgrid::config::get_value<std::string>("smpi/bw-factor"));
  f.cross_traffic = 1.05;
  f.by_size = true;
  return f;
}

namespace {

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
    if (nics[topo.gateway_vertex(n)] != topo.rails()) return -1;
  return sw;
}

struct World {
  sg4::NetZone* zone = nullptr;
  int star_switch = -1;
  std::vector<sg4::NetZone*> zone_of;  // by vertex: node and switch zones
  std::vector<simgrid::kernel::routing::NetPoint*> gateway_of;
  std::vector<NodeZone> rail_zone_of;  // by link: the rail zone a NIC of rail >= 1 leaves from

  // The zone and gateway where link `i` meets vertex `v`: a node's NIC of rail >= 1 meets its
  // rail's zone, every other link the vertex's own zone.
  std::pair<sg4::NetZone*, simgrid::kernel::routing::NetPoint*> end(std::size_t i, int v,
                                                                    const core::Topology& t) const {
    if (rail_zone_of[i].zone && t.vertex(v).kind == core::VertexKind::kGateway)
      return {rail_zone_of[i].zone, rail_zone_of[i].gateway};
    return {zone_of[v], gateway_of[v]};
  }
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
      auto [zone, gw] = w.end(i, gv, topo);
      w.zone->add_route(zone->get_netpoint(), nullptr, gw, nullptr,
                        {sg4::LinkInRoute(network_links[i], out)}, true);
      continue;
    }
    // UP is the direction from `a` to `b`; the symmetrical route uses DOWN.
    auto [zone_a, gw_a] = w.end(i, link.a, topo);
    auto [zone_b, gw_b] = w.end(i, link.b, topo);
    w.zone->add_route(zone_a->get_netpoint(), zone_b->get_netpoint(), gw_a, gw_b,
                      {sg4::LinkInRoute(network_links[i], Direction::UP)}, true);
  }
}

// The storage in a world of zones: a zone of its own, as a node's, whose link to the switch it
// attaches to is the storage link.
sg4::Host* add_storage(World& w, const StorageLinkSpec& spec, int sw) {
  auto* zone = sg4::create_star_zone("storage-zone");
  use_models_of(w.zone, zone);
  auto* gw = zone->create_router("storage-gw");
  auto* host = zone->create_host("storage", 1e9);
  zone->set_parent(w.zone);
  auto* link = make_storage_link(w.zone, spec);
  // The route from the storage to the network reads: DOWN; the symmetrical route writes: UP.
  std::vector<sg4::LinkInRoute> out = {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::DOWN)};
  if (w.star_switch >= 0)
    w.zone->add_route(zone->get_netpoint(), nullptr, gw, nullptr, out, true);
  else
    w.zone->add_route(zone->get_netpoint(), w.zone_of[sw]->get_netpoint(), gw, w.gateway_of[sw],
                      out, true);
  return host;
}

}  // namespace

int storage_switch(const core::Topology& topo) {
  int best = -1;
  std::size_t best_reach = 0;
  for (int sw : topo.switch_vertices()) {
    std::size_t reach = 0;
    for (int n = 0; n < topo.num_nodes(); ++n)
      reach = std::max(reach, topo.vertex_path(sw, topo.gateway_vertex(n)).hops.size());
    if (best < 0 || reach < best_reach) best = sw, best_reach = reach;
  }
  return best;
}

SimPlatform build_platform(const core::Topology& topo, bool flat_zone,
                           const std::optional<StorageLinkSpec>& storage) {
  SimPlatform out;
  World w;
  w.star_switch = lone_switch(topo);
  // Without flat_zone a zone per node stays where one zone would do (tests compare them).
  if (flat_zone && flat_cluster_fits(topo, w.star_switch)) {
    auto* world = new FlatClusterZone("world");  // SimGrid owns its zones
    out.device_hosts = world->build(topo, out.rail_hosts);
    if (storage) out.storage_host = world->add_storage(*storage);
    world->get_iface()->seal();
    return out;
  }
  w.zone = w.star_switch >= 0 ? sg4::create_star_zone("world")
                              : sg4::create_dijkstra_zone("world", /*cache=*/true);
  const auto& links = topo.links();
  // Each vertex outside a node (a switch) and each node is a zone with a gateway router.
  w.zone_of.assign(topo.num_vertices(), nullptr);
  w.gateway_of.assign(topo.num_vertices(), nullptr);
  w.rail_zone_of.assign(links.size(), NodeZone{});
  out.device_hosts.resize(topo.num_devices());
  out.rail_hosts.assign(topo.rails(), std::vector<sg4::Host*>(topo.num_devices(), nullptr));
  std::vector<sg4::Link*> device_links(links.size(), nullptr);

  // Node zones are filled before they join the world: SimGrid looks every new host and link name
  // up in each zone of the world, which made building 2,048 nodes quadratic. Filled apart (with
  // the world's models), they are attached once all exist; names are unique by construction.
  std::vector<sg4::NetZone*> detached;
  for (int n = 0; n < topo.num_nodes(); ++n) {
    int gv = topo.gateway_vertex(n);
    NodeZone node = build_device_zone(topo, n, out.device_hosts, device_links, w.zone);
    detached.push_back(node.zone);
    w.zone_of[gv] = node.zone;
    w.gateway_of[gv] = node.gateway;
    for (int r = 1; r < topo.rails(); ++r) {
      NodeZone rail = build_rail_zone(topo, n, r, out.rail_hosts[r], device_links, w.zone);
      detached.push_back(rail.zone);
      w.rail_zone_of[topo.nic_link(n, r)] = rail;
    }
  }
  out.rail_hosts[0] = out.device_hosts;
  // The network's links too are made while the world holds no node zone to search.
  std::vector<sg4::Link*> network_links(links.size(), nullptr);
  for (std::size_t i = 0; i < links.size(); ++i)
    if (links[i].cls != core::LinkClass::kIntraNode) network_links[i] = make_link(w.zone, links[i]);
  for (auto* zone : detached) zone->set_parent(w.zone);
  add_network_routes(w, topo, network_links);
  int sw = storage ? storage_switch(topo) : -1;
  if (sw >= 0) out.storage_host = add_storage(w, *storage, sw);
  w.zone->seal();
  return out;
}

}  // namespace scaleout::sim
