// Wall time and peak memory of simulating one synchronous step of ResNet-50's gradient (102.4 MB,
// no overlap) on 8-GPU nodes behind one switch, for ring, torus2d and PS at N = 64 .. 4096.
// Each simulation runs in its own process; its peak resident memory comes from wait4().
//
//   build/bench/bench_sim_scaling [max_workers] [--step]
//
// --step adds the step-by-step fidelity for the ring (every ring step a message), which is what a
// plain SimGrid program would do, to show what the fast fidelity saves.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/measure_child.hpp"
#include "core/plan/plan_loader.hpp"

using namespace scaleout;

namespace {

void measure(const core::Plan& plan, const std::string& fidelity) {
  bench::Measured m = bench::measure_simulation(plan, fidelity);
  const core::RunResult& r = m.result;
  std::printf("%-9s %-6s %6d %10.2f %10.1f %14.3f %12.2f\n", r.strategy.c_str(), fidelity.c_str(),
              r.workers, m.wall_s, m.peak_mb, r.step_time_s * 1e3, r.busbw_Bps / 1e9);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int max_workers = argc > 1 && argv[1][0] != '-' ? std::atoi(argv[1]) : 4096;
  bool step = false;
  for (int i = 1; i < argc; ++i) step |= std::strcmp(argv[i], "--step") == 0;
  core::Plan plan =
      core::load_plan(std::string(SCALEOUT_SOURCE_DIR) + "/experiments/quickstart.yaml");
  plan.training.steps = 1;
  plan.training.overlap = false;
  std::printf("one synchronous step, ResNet-50 gradient %.1f MB, %s (allocator: %s)\n",
              plan.gradient_bytes() / 1e6, plan.cluster.name.c_str(), bench::allocator_name());
  std::printf("%-9s %-6s %6s %10s %10s %14s %12s\n", "strategy", "fidel.", "N", "wall s", "peak MB",
              "sim step ms", "busbw GB/s");
  for (auto kind :
       {core::StrategyKind::kRing, core::StrategyKind::kTorus2d, core::StrategyKind::kPs})
    for (int n : {64, 256, 1024, 4096}) {
      if (n > max_workers) continue;
      plan.strategy.kind = kind;
      plan.training.workers = n;
      measure(plan, "fast");
      if (step && kind == core::StrategyKind::kRing && n <= 1024) measure(plan, "step");
    }
  return 0;
}
