// The pipeline's closed form against the textbook results: (m + p - 1)(f + b) for GPipe and 1F1B
// with free transfers, a bubble of (p - 1)/v of a stage's time for the interleaved schedule.
#include "analytic/pipeline_timing.hpp"

#include <gtest/gtest.h>

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
      for (auto kind : {PipelineScheduleKind::kGpipe, PipelineScheduleKind::kOneFOneB})
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
