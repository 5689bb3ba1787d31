// Cluster planning: the smallest cluster and strategy that reach a training target, from the
// analytic engine. One function answers for `scaleout plan` and the GUI's planning panel.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "explore/engine.hpp"

namespace scaleout::sim {

// What the cluster must achieve: a throughput, or a whole training run within a deadline.
struct PlanTarget {
  enum class Kind { kThroughput, kTimeToTrain };
  Kind kind = Kind::kThroughput;
  double throughput = 0;         // samples/s (kThroughput)
  double deadline_s = 0;         // seconds (kTimeToTrain)
  double samples_per_epoch = 0;  // kTimeToTrain
  double epochs = 0;             // kTimeToTrain
};

struct PlanRequest {
  PlanTarget target;
  double min_efficiency = 0;  // scaling efficiency an answer must keep (0..1)
  int max_workers = 1024;
  std::vector<core::StrategyKind> strategies = {core::StrategyKind::kPs, core::StrategyKind::kRing,
                                                core::StrategyKind::kTorus2d,
                                                core::StrategyKind::kHierarchicalRing};
  // Overrides the topology's price_per_device_hour; neither: no cost is given.
  std::optional<double> price_per_device_hour;
  // Predictions already made of this plan at a strategy and worker count (the GUI's curves):
  // used instead of predicting again; null, or null for a point, to predict.
  std::function<const core::RunResult*(core::StrategyKind, int workers)> known;
};

// What limits a configuration: "compute", "latency", or a link kind ("nic", "server_nic",
// "intra_node", "uplink", "link") with the link's name when a result names it.
struct Bottleneck {
  std::string kind;
  std::string link;
  std::string text;  // one line for people
};

struct PlanOption {
  core::StrategyKind strategy = core::StrategyKind::kRing;
  int workers = 0;
  int devices = 0;  // workers plus the devices of dedicated parameter-server nodes (not CPU hosts)
  core::RunResult result;
  double train_time_s = 0;  // kTimeToTrain targets; 0 otherwise
  // The samples/s the target is held to: the result's, times its expected goodput for a
  // time-to-train target when the plan gives failure rates (`reliability:`).
  double effective_throughput = 0;
  std::optional<double> cost_per_hour;  // devices x price
  std::optional<double> cost;           // for the whole run (kTimeToTrain with a price)
  Bottleneck bottleneck;
};

struct PlanAnswer {
  bool reachable = false;
  double required_throughput = 0;       // samples/s the target amounts to
  std::vector<int> sizes;               // worker counts tried (doublings, bisections), ascending
  std::optional<PlanOption> best;       // the smallest cluster reaching the target
  std::optional<PlanOption> runner_up;  // the best answer with another strategy
  std::optional<PlanOption> closest;    // unreachable: the fastest configuration tried
  std::string message;                  // the answer in one line
};

// The samples/s a request's target amounts to (a time-to-train target: the samples to train over
// the deadline).
double plan_cluster_target(const PlanRequest& request);

// `base` with another strategy and worker count (a torus grid fixed for another count is dropped,
// so the most square grid is chosen again).
core::Plan plan_at(const core::Plan& base, core::StrategyKind kind, int workers);

// What limits `r` (a result of `plan`): compute when the exchange is mostly hidden, else the
// busiest link a simulated result names, else latency or the link that the bandwidth term loads
// most, from `engine`'s exchange in closed form (none: "communication").
Bottleneck find_bottleneck(const PredictionEngine& engine, const core::Plan& plan,
                           const core::RunResult& r);

// Worker counts the planner starts from: devices_per_node (or 1), doubling, up to max_workers,
// and the most whole nodes max_workers allows when that is not a doubling.
std::vector<int> planner_sizes(const core::Plan& base, int max_workers);

// Sweeps `request.strategies` x planner_sizes() with the analytic engine; where a strategy
// meets the target first at a doubling, bisects the whole-node counts between it and the doubling
// below (throughput taken as growing with nodes there). Picks the option with the fewest devices
// (then the highest throughput) that meets the target and the minimum efficiency. Configurations
// a strategy cannot run (e.g. hierarchical_ring on a partial node) are left out. Throws
// core::InputError for a malformed request (non-positive target, ...).
PlanAnswer plan_cluster(const core::Plan& base, const PlanRequest& request);

// The answer as JSON (`scaleout plan --json`).
nlohmann::json to_json(const PlanAnswer& answer);

}  // namespace scaleout::sim
