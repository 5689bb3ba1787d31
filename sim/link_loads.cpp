#include "sim/link_loads.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;

namespace {

struct DirectedLink {
  int link;
  bool up;
  double share = 1;  // of the pair's bytes
};

// SimGrid names the halves of a split-duplex link NAME_UP and NAME_DOWN.
DirectedLink resolve(const std::unordered_map<std::string, int>& by_name,
                     const std::string& simgrid_name) {
  bool up = simgrid_name.size() > 3 && simgrid_name.compare(simgrid_name.size() - 3, 3, "_UP") == 0;
  std::size_t cut = up ? 3 : (simgrid_name.size() > 5 ? 5 : 0);
  auto it = by_name.find(simgrid_name.substr(0, simgrid_name.size() - cut));
  return {it == by_name.end() ? -1 : it->second, up, 1};
}

}  // namespace

std::vector<core::LinkLoad> link_loads(const core::Topology& topo, const SimWorld& world,
                                       const std::vector<double>& step_start,
                                       const std::vector<double>& step_end, core::Trace* trace) {
  const auto& links = topo.links();
  std::unordered_map<std::string, int> by_name;
  for (std::size_t i = 0; i < links.size(); ++i) by_name[links[i].name] = static_cast<int>(i);

  // A pair's bytes load each link of its route; striped over rails, each rail's route a share.
  std::unordered_map<std::uint64_t, std::vector<DirectedLink>> routes;
  auto route = [&](std::uint64_t key) -> const std::vector<DirectedLink>& {
    auto it = routes.find(key);
    if (it != routes.end()) return it->second;
    int from = static_cast<int>(key >> 32), to = static_cast<int>(key & 0xffffffffu);
    bool across =
        topo.node_of_device(world.rank_device[from]) != topo.node_of_device(world.rank_device[to]);
    std::vector<DirectedLink> out;
    std::size_t rails = across && world.rail_host.size() > 1 ? world.rail_host.size() : 1;
    for (std::size_t r = 0; r < rails; ++r) {
      std::vector<sg4::Link*> path;
      double latency = 0;
      const auto& hosts = rails > 1 ? world.rail_host[r] : world.rank_host;
      hosts[from]->route_to(hosts[to], path, &latency);
      for (auto* l : path) {
        DirectedLink d = resolve(by_name, l->get_name());
        d.share = 1.0 / static_cast<double>(rails);
        if (d.link >= 0) out.push_back(d);
      }
    }
    return routes.emplace(key, std::move(out)).first->second;
  };

  std::size_t steps = step_end.size();
  // [step][link] bytes per direction.
  std::vector<std::vector<double>> up(steps, std::vector<double>(links.size())), down = up;
  for (std::size_t s = 0; s < std::min(steps, world.pair_bytes.size()); ++s)
    for (const auto& [key, bytes] : world.pair_bytes[s])
      for (const auto& d : route(key)) (d.up ? up : down)[s][d.link] += bytes * d.share;

  double total_time = steps ? step_end.back() : 0;
  std::vector<core::LinkLoad> out;
  for (std::size_t l = 0; l < links.size(); ++l) {
    double u = 0, dn = 0;
    for (std::size_t s = 0; s < steps; ++s) {
      u += up[s][l];
      dn += down[s][l];
    }
    if (u + dn <= 0) continue;
    double util = total_time > 0 ? std::max(u, dn) / (links[l].bandwidth * total_time) : 0;
    out.push_back({links[l].name, u + dn, util});
    if (trace) {
      int track = trace->add_track("link " + links[l].name);
      for (std::size_t s = 0; s < steps; ++s) {
        double span = step_end[s] - step_start[s];
        double step_util =
            span > 0 ? std::max(up[s][l], down[s][l]) / (links[l].bandwidth * span) : 0;
        trace->counter(track, "utilization", step_start[s], step_util);
      }
      trace->counter(track, "utilization", total_time, 0);
    }
  }
  return out;
}

}  // namespace scaleout::sim
