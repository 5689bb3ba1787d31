// Wall time of a 100,000-row analytic sweep (ring, torus2d, PS over 33,334 worker counts), CSV
// written row by row as `scaleout sweep --engine analytic` does.
//
//   build/bench/bench_analytic_sweep [rows]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/plan/plan_loader.hpp"
#include "explore/sweep.hpp"

using namespace scaleout;

int main(int argc, char** argv) {
  int rows = argc > 1 ? std::atoi(argv[1]) : 100000;
  core::Plan plan =
      core::load_plan(std::string(SCALEOUT_SOURCE_DIR) + "/experiments/quickstart.yaml");
  sim::SweepOptions o;
  o.engine = sim::Engine::kAnalytic;
  o.strategies = {core::StrategyKind::kRing, core::StrategyKind::kTorus2d, core::StrategyKind::kPs};
  int per_strategy = (rows + 2) / 3;
  for (int n = 8; n < 8 + per_strategy; ++n) o.workers.push_back(n);
  o.csv_path = (std::filesystem::temp_directory_path() / "scaleout-bench-sweep.csv").string();
  auto t0 = std::chrono::steady_clock::now();
  sim::SweepSummary s = sim::run_sweep(plan, o);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("analytic sweep: %zu rows (%zu errors) in %.3f s, %.0f rows/s; workers 8..%d\n",
              s.rows.size(), s.errors.size(), wall, s.rows.size() / wall, 8 + per_strategy - 1);
  std::filesystem::remove(o.csv_path);
  return 0;
}
