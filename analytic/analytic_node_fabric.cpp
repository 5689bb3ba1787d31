#include "analytic/analytic_node_fabric.hpp"

#include <algorithm>
#include <limits>

namespace scaleout::sim {

bool intra_node_shared(const core::Cluster& cluster) {
  return cluster.intra_fabric.kind == core::IntraNodeKind::kPcieTree;
}

IntraNodeLoad::IntraNodeLoad(const core::Topology& topo, int workers,
                             const std::function<int(int)>& partner, const std::vector<int>& nodes)
    : topo_(topo) {
  for (int r = 0; r < workers; ++r) {
    int p = partner(r);
    if (p < 0 || p == r) continue;
    int a = topo.node_of_device(r), b = topo.node_of_device(p);
    if (std::find(nodes.begin(), nodes.end(), a) == nodes.end() &&
        std::find(nodes.begin(), nodes.end(), b) == nodes.end())
      continue;
    for (const core::Hop& h : inner_hops(r, p)) ++flows_[{h.link, h.forward}];
  }
}

// The hops of a flow that lie inside its nodes (a flow striped over rails crosses them once).
std::vector<core::Hop> IntraNodeLoad::inner_hops(int from, int to) const {
  if (topo_.node_of_device(from) == topo_.node_of_device(to))
    return topo_.device_path(from, to).hops;
  std::vector<core::Hop> hops = topo_.device_chain(from);
  const auto& down = topo_.device_chain(to);
  for (auto h = down.rbegin(); h != down.rend(); ++h) hops.push_back({h->link, !h->forward});
  return hops;
}

double IntraNodeLoad::rate(int from, int to) const {
  double rate = std::numeric_limits<double>::infinity();
  for (const core::Hop& h : inner_hops(from, to)) {
    auto it = flows_.find({h.link, h.forward});
    if (it == flows_.end()) continue;
    rate = std::min(rate, topo_.links()[h.link].bandwidth / it->second);
  }
  return rate;
}

}  // namespace scaleout::sim
