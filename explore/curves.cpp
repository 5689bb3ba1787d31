#include "explore/curves.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "explore/sweep.hpp"

namespace scaleout::sim {

const std::vector<core::StrategyKind>& default_strategies() {
  static const std::vector<core::StrategyKind> kinds = {
      core::StrategyKind::kPs, core::StrategyKind::kRing, core::StrategyKind::kTorus2d,
      core::StrategyKind::kHierarchicalRing};
  return kinds;
}

std::vector<int> doubling_sizes(int min_workers, int max_workers) {
  std::vector<int> sizes;
  for (long n = std::max(1, min_workers); n <= std::max(max_workers, min_workers); n *= 2)
    sizes.push_back(static_cast<int>(n));
  return sizes;
}

std::vector<int> fitting_sizes(const core::Plan& plan, int max_workers) {
  if (plan.parallelism) {  // whole replicas: doubling the data-parallel degree
    const core::Parallelism& p = *plan.parallelism;
    int replica = p.tensor * p.pipeline * p.context;
    std::vector<int> sizes;  // up to the plan's own size at least
    long largest = std::max<long>({max_workers, 8L * replica, plan.training.workers});
    for (long n = replica; n <= largest && n <= 1 << 24; n *= 2)
      sizes.push_back(static_cast<int>(n));
    return sizes;
  }
  Curves trial = compute_curves(plan, doubling_sizes(1, max_workers));
  int largest = 0;
  for (const auto& c : trial.curves)
    if (!c.points.empty()) largest = std::max(largest, c.points.back().workers);
  int first = std::min(8, std::max(1, plan.cluster.devices_per_node));
  if (largest <= first) first = 1;  // one node at most: show it filling up
  return doubling_sizes(first, std::max(largest, 2 * first));
}

Curves compute_curves(const core::Plan& plan, const std::vector<int>& workers,
                      const std::vector<core::StrategyKind>& strategies) {
  SweepOptions options;
  options.workers = workers;
  options.strategies = strategies;
  options.engine = Engine::kAnalytic;
  SweepSummary summary = run_sweep(plan, options);
  Curves out;
  out.workers = workers;
  out.errors = summary.errors;
  for (auto kind : strategies) out.curves.push_back({core::strategy_name(kind), {}});
  for (auto& r : summary.rows)
    for (auto& c : out.curves)
      if (c.strategy == r.strategy) c.points.push_back(std::move(r));
  for (auto& c : out.curves)
    std::sort(c.points.begin(), c.points.end(),
              [](const auto& a, const auto& b) { return a.workers < b.workers; });
  return out;
}

namespace {

// Efficiencies closer than this (0.1 percentage point) count as equal.
constexpr double kTie = 1e-3;

std::map<int, double> efficiency_by_size(const Curve& c) {
  std::map<int, double> m;
  for (const auto& p : c.points) m[p.workers] = p.scaling_efficiency;
  return m;
}

}  // namespace

std::vector<Crossover> find_crossovers(const Curves& curves) {
  std::vector<Crossover> out;
  for (std::size_t i = 0; i < curves.curves.size(); ++i)
    for (std::size_t j = i + 1; j < curves.curves.size(); ++j) {
      auto a = efficiency_by_size(curves.curves[i]), b = efficiency_by_size(curves.curves[j]);
      // Sizes both strategies ran, in order; a crossing lies between neighbours whose
      // differences have opposite signs.
      std::vector<int> both;
      for (const auto& [n, e] : a)
        if (b.count(n)) both.push_back(n);
      for (std::size_t k = 0; k + 1 < both.size(); ++k) {
        int n0 = both[k], n1 = both[k + 1];
        double d0 = a[n0] - b[n0], d1 = a[n1] - b[n1];
        // A tie at a size (hierarchical_ring and torus2d on one node) is no crossing.
        if (!(d0 * d1 < 0) || std::abs(d0) < kTie || std::abs(d1) < kTie) continue;
        double t = d0 / (d0 - d1);
        double x = std::exp2(std::log2(n0) + t * (std::log2(n1) - std::log2(n0)));
        double y = a[n0] + t * (a[n1] - a[n0]);
        const std::string& first = d0 > 0 ? curves.curves[i].strategy : curves.curves[j].strategy;
        const std::string& second = d0 > 0 ? curves.curves[j].strategy : curves.curves[i].strategy;
        out.push_back({first, second, x, y});
      }
    }
  std::sort(out.begin(), out.end(),
            [](const auto& x, const auto& y) { return x.workers < y.workers; });
  return out;
}

const core::RunResult* find_point(const Curves& curves, const std::string& strategy, int workers) {
  for (const auto& c : curves.curves)
    if (c.strategy == strategy)
      for (const auto& p : c.points)
        if (p.workers == workers) return &p;
  return nullptr;
}

}  // namespace scaleout::sim
