// Max-min fair sharing of links among flows that all start at once, as SimGrid's network models
// share them: every flow gets the same rate unless a link elsewhere holds it lower, and when a
// flow ends the others take up its share. The closed forms use it where flows of unequal routes
// meet (parameter servers beside workers, rack uplinks) and a single "flows per NIC" count is off.
#pragma once

#include <limits>
#include <vector>

#include "core/plan/topology.hpp"

namespace scaleout::sim {

struct FairFlow {
  std::vector<core::Hop> hops;  // directed links crossed (empty: costs nothing)
  double bytes = 0;
  // The flow's own bound (TCP's window over its round trip), bytes/s before the bandwidth
  // factor; infinity: none.
  double cap = std::numeric_limits<double>::infinity();
};

// Time until the last of `flows` is through, all starting at 0 (no latency). Each flow takes
// weight 1 of every link direction it crosses and `cross_traffic - 1` of the opposite direction
// (SimGrid's cross-traffic: the acknowledgements; 1 = none); its rate is then scaled by
// `bandwidth_factor`. Link capacities are topo.links()[i].bandwidth in each direction.
double fair_share_makespan(const core::Topology& topo, const std::vector<FairFlow>& flows,
                           double bandwidth_factor, double cross_traffic);

}  // namespace scaleout::sim
