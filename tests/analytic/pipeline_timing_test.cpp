// The pipeline's closed form against the textbook results: (m + p - 1)(f + b) for GPipe and 1F1B
// with free transfers, a bubble of (p - 1)/v of a stage's time for the interleaved schedule.
#include "analytic/pipeline_timing.hpp"

#include <gtest/gtest.h>

#include <tuple>

namespace scaleout::sim {
namespace {

using core::PipelineScheduleKind;

TEST(PipelineTiming, GpipeAndOneFOneBTakeMPlusPMinusOneSlots) {
  const double f = 1.0, b = 2.0;
  for (auto kind : {PipelineScheduleKind::kGpipe, PipelineScheduleKind::kOneFOneB})
    for (int p : {1, 2, 4, 8})
      for (int m : {1, 3, 8, 32}) {
        PipeTiming t = time_pipeline(kind, p, m, 1, uniform_costs(p, 1, f, b, 0));
        EXPECT_NEAR(t.iteration, (m + p - 1) * (f + b), 1e-9)
            << core::schedule_name(kind) << " p=" << p << " m=" << m;
        for (double busy : t.busy) EXPECT_DOUBLE_EQ(busy, m * (f + b));
      }
}

TEST(PipelineTiming, InterleavedBubbleShrinksByTheChunks) {
  // Per stage: forward 1 and backward 2 for the whole stage, split over v chunks.
  const int p = 4, m = 16;
  for (int v : {1, 2, 4}) {
    PipeTiming t = time_pipeline(PipelineScheduleKind::kInterleaved, p, m, v,
                                 uniform_costs(p, v, 1.0 / v, 2.0 / v, 0));
    double ideal = m * 3.0 + (p - 1) * 3.0 / v;
    EXPECT_NEAR(t.iteration / ideal, 1.0, 0.01) << "v=" << v;
  }
}

// Qi et al. 2023 (Zero Bubble Pipeline Parallelism), section 3: with forward F, the inputs'
// gradient B and the weights' W, 1F1B's bubble is (p - 1)(F + B + W) and ZB-H1's (p - 1)(F + B -
// W): a third of 1F1B's when the three are equal.
TEST(PipelineTiming, ZeroBubbleH1LeavesABubbleOfPMinusOneTimesFPlusBMinusW) {
  for (auto [f, b, w] : {std::tuple{1.0, 1.0, 1.0}, std::tuple{1.0, 1.3, 0.7}})
    for (int p : {2, 4, 8})
      for (int m : {p, 2 * p, 24}) {
        PipeCosts costs = uniform_costs(p, 1, f, b, 0);
        costs.weight.assign(p, std::vector<double>(1, w));
        PipeTiming zb = time_pipeline(PipelineScheduleKind::kZeroBubble, p, m, 1, costs);
        EXPECT_NEAR(zb.iteration, m * (f + b + w) + (p - 1) * (f + b - w), 1e-9)
            << "p=" << p << " m=" << m << " w=" << w;
        for (double busy : zb.busy) EXPECT_NEAR(busy, m * (f + b + w), 1e-9);
        PipeTiming one_f_one_b = time_pipeline(PipelineScheduleKind::kOneFOneB, p, m, 1,
                                               uniform_costs(p, 1, f, b + w, 0));
        double bubble = one_f_one_b.iteration - m * (f + b + w);
        EXPECT_NEAR(bubble, (p - 1) * (f + b + w), 1e-9);
        if (w == b && b == f) EXPECT_NEAR(zb.iteration - m * 3 * f, bubble / 3, 1e-9);
      }
}

TEST(PipelineTiming, GpipeTransfersAddTwiceTheDepth) {
  // Forwards flow down p - 1 hops and backwards back up: 2 (p - 1) transfers on the path.
  const int p = 4, m = 8;
  const double f = 1.0, b = 2.0, hop = 0.25;
  PipeTiming t =
      time_pipeline(PipelineScheduleKind::kGpipe, p, m, 1, uniform_costs(p, 1, f, b, hop));
  EXPECT_NEAR(t.iteration, (m + p - 1) * (f + b) + 2 * (p - 1) * hop, 1e-9);
}

TEST(PipelineTiming, EveryScheduleRunsToTheEnd) {
  // A schedule that deadlocks throws; these are the shapes the planner will try.
  for (int p : {1, 2, 3, 4, 8})
    for (int m : {1, 2, 4, 8, 12, 16}) {
      for (auto kind : {PipelineScheduleKind::kGpipe, PipelineScheduleKind::kOneFOneB,
                        PipelineScheduleKind::kZeroBubble})
        EXPECT_NO_THROW(time_pipeline(kind, p, m, 1, uniform_costs(p, 1, 1, 2, 0.1)));
      if (m % p == 0)
        for (int v : {2, 3, 4})
          EXPECT_NO_THROW(time_pipeline(PipelineScheduleKind::kInterleaved, p, m, v,
                                        uniform_costs(p, v, 1, 2, 0.1)))
              << "p=" << p << " m=" << m << " v=" << v;
    }
}

}  // namespace
}  // namespace scaleout::sim
