// The best checkpoint interval as a user finds it: sweep `checkpoint.every` over a plan, predict
// each with the closed form, and keep the interval with the most goodput. It must lie within 15 %
// of the interval the result names and of Young's sqrt(2 x cost x MTBF), computed here by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "analytic/analytic.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

core::Plan plan_checkpointing_every(long steps) {
  return testing::load_text(
      "goodput-sweep",
      "cluster:\n  name: c\n  devices_per_node: 8\n  device: { name: X, flops: 100TFLOPS }\n"
      "  intra_node: { bandwidth: 100GB/s, latency: 1us }\n"
      "  nic: { bandwidth: 100Gbps, latency: 2us }\n"
      "workload:\n  name: gpt\n  efficiency: 0.5\n"
      "  transformer: { layers: 8, hidden: 2048, heads: 16, sequence: 1024, vocabulary: 32000 }\n"
      "parallelism: { tensor: 2 }\n"
      "strategy: { kind: ring }\n"
      "training: { workers: 8, global_batch: 8 }\n"
      "reliability: { node_mtbf: 100d, train_steps: 100M, samples: 1 }\n"
      "checkpoint: { every: " +
          std::to_string(steps) + ", cost: 30s, restart: 5min }\n");
}

TEST(GoodputSweep, BestIntervalOfASweepIsTheResultsAndYoungs) {
  core::RunResult first = predict_analytic(plan_checkpointing_every(1000));
  ASSERT_TRUE(first.reliability);
  const double step = first.step_time_s;
  // One node: the job fails every 100 days; a checkpoint stalls 30 s.
  const double young = std::sqrt(2 * 30 * 100 * 86400.0);
  double best_interval = 0, best_goodput = 0;
  for (double interval = young / 4; interval < young * 4; interval *= 1.05) {
    core::RunResult r = predict_analytic(plan_checkpointing_every(std::lround(interval / step)));
    if (r.reliability->goodput > best_goodput) {
      best_goodput = r.reliability->goodput;
      best_interval = r.reliability->checkpoint_interval_s;
    }
  }
  EXPECT_NEAR(best_interval / first.reliability->best_checkpoint_interval_s, 1.0, 0.15);
  EXPECT_NEAR(best_interval / young, 1.0, 0.15) << best_interval << " s, Young " << young;
  EXPECT_NEAR(first.reliability->job_mtbf_s, 100 * 86400.0, 1e-6);
}

}  // namespace
}  // namespace scaleout::sim
