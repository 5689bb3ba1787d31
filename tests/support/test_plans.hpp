// Plans built in code for tests, and the paths of the bundled data.
#pragma once

#include <string>
#include <vector>

#include "core/plan.hpp"

namespace scaleout::testing {

std::string source_path(const std::string& relative);  // inside the repository

// Every plan bundled under experiments/, sorted: the YAML files with a top-level `cluster` key
// (studies and their topologies live there too), but those named *-does-not-fit.yaml, bundled to
// show a refusal.
std::vector<std::string> bundled_plans();

// A switch cluster of `devices_per_node`-device nodes (nodes: auto), CM02, no corrections.
core::Cluster switch_cluster(int devices_per_node, double nic_Bps, double nic_latency_s,
                             double intra_Bps = 150e9, double intra_latency_s = 1e-6);

// A plan of one step, no overlap, `parameters` fp32 gradient elements and compute of 1 GFLOP.
core::Plan collective_plan(const core::Cluster& cluster, core::StrategyKind kind, int workers,
                           double parameters);

}  // namespace scaleout::testing
