// Bytes and utilization per link, from the bytes each pair of ranks sent and the routes SimGrid
// used for them. REQUIRES: the SimGrid engine of the run is still alive.
#pragma once

#include <vector>

#include "core/formats/trace.hpp"
#include "core/plan/topology.hpp"
#include "core/results/result.hpp"
#include "sim/sim_fabric.hpp"

namespace scaleout::sim {

// Links that carried traffic, in topology order. Utilization is the busier direction's bytes over
// bandwidth x run time. With a trace, adds one counter track per busy link (utilization per step).
std::vector<core::LinkLoad> link_loads(const core::Topology& topo, const SimWorld& world,
                                       const std::vector<double>& step_start,
                                       const std::vector<double>& step_end, core::Trace* trace);

}  // namespace scaleout::sim
