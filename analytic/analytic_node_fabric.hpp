// The closed forms' view of the links inside nodes when they are not a non-blocking star (a PCIe
// tree): in one step of a pattern, how many flows cross each direction of each such link, and
// the rate that leaves a flow.
#pragma once

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "core/plan/topology.hpp"

namespace scaleout::sim {

class IntraNodeLoad {
 public:
  // Counts the flows of the pattern (rank r sends to partner(r); partner < 0: nothing) over the
  // links inside `nodes`. Ranks 0..workers-1 sit on devices 0..workers-1.
  IntraNodeLoad(const core::Topology& topo, int workers, const std::function<int(int)>& partner,
                const std::vector<int>& nodes);

  // The rate of the flow from rank `from` to `to` on the counted links it crosses: the least of
  // their bandwidths, each shared evenly by the flows crossing it in that direction (infinite
  // when it crosses none).
  double rate(int from, int to) const;

 private:
  std::vector<core::Hop> inner_hops(int from, int to) const;

  const core::Topology& topo_;
  std::map<std::pair<int, bool>, int> flows_;  // (link, forward) -> flows
};

// True when the cluster's nodes are not stars (their links may be shared by several flows).
bool intra_node_shared(const core::Cluster& cluster);

}  // namespace scaleout::sim
