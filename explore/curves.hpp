// Scaling curves: an analytic sweep of a plan over strategies and worker counts,
// and where strategies' scaling efficiencies cross. No Qt here: tests check these numbers.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"

namespace scaleout::sim {

struct Curve {
  std::string strategy;
  std::vector<core::RunResult> points;  // ascending workers; sizes a strategy cannot run are absent
};

struct Curves {
  std::vector<int> workers;  // the sizes asked for
  std::vector<Curve> curves;
  std::vector<std::string> errors;  // points that could not run, with the reason
};

// The strategies the GUI and the crossover study compare by default.
const std::vector<core::StrategyKind>& default_strategies();

// 8, 16, ... up to `max_workers` (at least 8).
std::vector<int> doubling_sizes(int min_workers, int max_workers);

// Sizes doubling from one node (8 on 8-device nodes, 1 on single-device hosts; 1 when the cluster
// is one node) up to `max_workers`, cut at the largest size some strategy can run on it. A
// model-parallel plan: whole replicas (tensor x pipeline devices) doubling, at least 8 of them and
// up to the plan's own size.
std::vector<int> fitting_sizes(const core::Plan& plan, int max_workers = 1024);

// The analytic sweep `scaleout sweep --engine analytic` runs, without a CSV.
Curves compute_curves(const core::Plan& plan, const std::vector<int>& workers,
                      const std::vector<core::StrategyKind>& strategies = default_strategies());

struct Crossover {
  std::string first, second;  // first is better below the crossing, second above
  double workers = 0;         // interpolated on a log2 axis
  double efficiency = 0;
};

// Where two curves' scaling efficiencies change order between neighbouring sizes.
std::vector<Crossover> find_crossovers(const Curves& curves);

// The point of `strategy` at `workers`, or nullptr.
const core::RunResult* find_point(const Curves& curves, const std::string& strategy, int workers);

}  // namespace scaleout::sim
