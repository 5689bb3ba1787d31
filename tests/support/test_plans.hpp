// Plans built in code for tests, and the paths of the bundled data.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"

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

// The one definition of the rates every engine reports (core::derive_from_applied): throughput is
// the applied gradients' samples over the run (step time x steps), scaling efficiency that over N
// workers each doing a batch per compute time. Checked with gtest's EXPECTs.
void expect_rates_from_applied(const core::RunResult& r, int batch_per_worker, int steps);

// `plan` with failure rates (`reliability:`): each node failing every `node_mtbf_s`, a run of
// `train_steps`, a checkpoint every `every_steps` stalling `cost_s`, restarts of `restart_s`.
core::Plan with_node_failures(core::Plan plan, double node_mtbf_s, double train_steps,
                              int every_steps, double cost_s, double restart_s);

}  // namespace scaleout::testing
