// Wall time of simulating an asynchronous parameter server: 256 workers, 4 shards, 100 steps
// each (ResNet-50 gradients), on the 25 GbE topology (LV08) and on the InfiniBand switch (CM02).
//
//   build/bench/bench_async_ps [workers] [steps]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/measure_child.hpp"
#include "core/plan/plan_loader.hpp"

using namespace scaleout;

int main(int argc, char** argv) {
  int workers = argc > 1 ? std::atoi(argv[1]) : 256;
  int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  std::string root = SCALEOUT_SOURCE_DIR;
  std::printf("async PS, %d workers, 4 shards, %d steps each (allocator: %s)\n", workers, steps,
              bench::allocator_name());
  std::printf("%-26s %10s %10s %12s %14s %10s\n", "topology", "wall s", "peak MB", "messages/s",
              "samples/s", "staleness");
  for (const char* topo : {"ethernet-25g-ps", "v100-ib-switch"}) {
    core::Plan plan = core::load_plan(root + "/experiments/quickstart.yaml");
    plan.cluster = core::load_cluster(root + "/topologies/" + topo + ".yaml");
    plan.strategy.kind = core::StrategyKind::kPs;
    plan.strategy.ps_mode = core::PsMode::kAsync;
    plan.strategy.ps_servers = 4;
    plan.training.workers = workers;
    plan.training.steps = steps;
    plan.training.overlap = false;
    bench::Measured m = bench::measure_simulation(plan, "fast");
    // Per worker step and shard: one push (carrying the next pull) and one reply.
    double messages = 2.0 * workers * steps * 4;
    std::printf("%-26s %10.2f %10.1f %12.0f %14.1f %10.2f\n", topo, m.wall_s, m.peak_mb,
                messages / m.wall_s, m.result.throughput_samples_per_s, m.result.staleness.mean);
    std::fflush(stdout);
  }
  return 0;
}
