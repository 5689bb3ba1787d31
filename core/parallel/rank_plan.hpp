// What every engine sets up the same way before it runs a plan: the topology built for the plan,
// where each rank runs, the layout strategies see, and the keys every result starts from.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/plan/topology.hpp"
#include "core/programs/strategy.hpp"
#include "core/results/result.hpp"

namespace scaleout::core {

struct RankPlan {
  Topology topology;
  Placement placement;
  RankLayout layout;
  std::vector<int> rank_device;  // rank -> device: workers, then parameter servers

  int ranks() const { return static_cast<int>(rank_device.size()); }
  int node_of_rank(int rank) const { return topology.node_of_device(rank_device[rank]); }
};

// Builds the topology for the plan's devices and places its ranks. Throws InputError as
// Topology::build and place_ranks do.
RankPlan plan_ranks(const Plan& plan);

// A result with the keys that say what ran: engine, strategy, plan, cluster, workload, network
// model, workers, servers and gradient bytes (as moved: elements x the precision's bytes), the
// fusion kind, bucket count and torus grid, and the warnings about the plan's compute figures.
RunResult result_header(const Plan& plan, const std::string& engine,
                        const std::string& network_model, int servers);

}  // namespace scaleout::core
