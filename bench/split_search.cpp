// How long `scaleout plan --search` takes: every split of GPT-3 175B (the bundled plan's model,
// global batch 1,536, A100 DGX nodes) on 4,096 GPUs, then on 1,024 to 65,536 GPUs (doubling),
// with the combinations evaluated and left out, beside the targets (under 2 s; under 30 s for
// all sizes).
//
//   build/bench/bench_split_search
#include "explore/split_search.hpp"

#include <cstdio>

#include "core/plan/plan_loader.hpp"

using namespace scaleout;

namespace {

double search_at(core::Plan plan, int workers) {
  plan.training.workers = workers;
  sim::SplitSearch s = sim::search_splits(plan);
  long dropped = 0;
  for (const auto& [why, n] : s.dropped) dropped += n;
  std::printf("%6d GPUs: %7.3f s, %6ld splits evaluated, %6ld left out; best %s\n", workers,
              s.wall_s, s.evaluated, dropped,
              s.best.empty() ? "none fits" : s.best.front().bottleneck.c_str());
  std::fflush(stdout);
  return s.wall_s;
}

}  // namespace

int main() {
  core::Plan plan =
      core::load_plan(SCALEOUT_SOURCE_DIR "/experiments/model-parallel/gpt3-175b.yaml");
  std::printf("one size (target < 2 s):\n");
  search_at(plan, 4096);
  std::printf("1,024 to 65,536 GPUs (target < 30 s in all):\n");
  double total = 0;
  for (int n = 1024; n <= 65536; n *= 2) total += search_at(plan, n);
  std::printf("in all: %.2f s\n", total);
  return 0;
}
