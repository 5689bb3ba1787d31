// Pipeline schedules: every micro-batch once forward and once backward, in an order that keeps the
// activations each schedule is known for.
#include "core/parallel/pipeline_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

namespace scaleout::core {
namespace {

using Kind = PipeOp::Kind;

void expect_complete(const std::vector<PipeOp>& ops, int microbatches, int chunks) {
  std::set<std::tuple<int, int, int>> seen;
  for (const auto& op : ops) {
    EXPECT_TRUE(seen.insert({op.kind == Kind::kForward, op.microbatch, op.chunk}).second)
        << "op twice: micro-batch " << op.microbatch << " chunk " << op.chunk;
    EXPECT_GE(op.microbatch, 0);
    EXPECT_LT(op.microbatch, microbatches);
    EXPECT_LT(op.chunk, chunks);
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(2 * microbatches * chunks));
  // A backward never comes before its own forward on the stage.
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind == Kind::kBackward)
      EXPECT_NE(std::find(ops.begin(), ops.begin() + i,
                          PipeOp{Kind::kForward, ops[i].microbatch, ops[i].chunk}),
                ops.begin() + i);
}

TEST(PipelineSchedule, OneFOneBKeepsAtMostTheStagesDepth) {
  const int stages = 4, microbatches = 8;
  for (int s = 0; s < stages; ++s) {
    auto ops = stage_schedule(PipelineScheduleKind::kOneFOneB, s, stages, microbatches, 1);
    expect_complete(ops, microbatches, 1);
    EXPECT_EQ(peak_in_flight(ops), stages - s) << "stage " << s;
  }
  // Fewer micro-batches than stages: all of them.
  EXPECT_EQ(peak_in_flight(stage_schedule(PipelineScheduleKind::kOneFOneB, 0, 8, 3, 1)), 3);
}

TEST(PipelineSchedule, GpipeKeepsEveryMicrobatch) {
  auto ops = stage_schedule(PipelineScheduleKind::kGpipe, 2, 4, 16, 1);
  expect_complete(ops, 16, 1);
  EXPECT_EQ(peak_in_flight(ops), 16);
  EXPECT_EQ(ops[15].kind, Kind::kForward);
  EXPECT_EQ(ops[16].kind, Kind::kBackward);
}

TEST(PipelineSchedule, InterleavedRunsEveryChunkInMegatronsOrder) {
  const int stages = 4, microbatches = 8, chunks = 2;
  for (int s = 0; s < stages; ++s) {
    auto ops = stage_schedule(PipelineScheduleKind::kInterleaved, s, stages, microbatches, chunks);
    expect_complete(ops, microbatches, chunks);
    // Warm-up: (p - s - 1) x 2 + (v - 1) x p forwards, then one more before the first backward.
    EXPECT_EQ(peak_in_flight(ops), (stages - s - 1) * 2 + (chunks - 1) * stages + 1);
  }
  auto ops = stage_schedule(PipelineScheduleKind::kInterleaved, 0, stages, microbatches, chunks);
  // Micro-batches 0-3 through chunk 0, then 0-3 through chunk 1, then 4-7 through chunk 0.
  EXPECT_EQ(ops[0], (PipeOp{Kind::kForward, 0, 0}));
  EXPECT_EQ(ops[3], (PipeOp{Kind::kForward, 3, 0}));
  EXPECT_EQ(ops[4], (PipeOp{Kind::kForward, 0, 1}));
  EXPECT_EQ(ops[8], (PipeOp{Kind::kForward, 4, 0}));
}

// ZB-H1: 1F1B's forwards and backwards in 1F1B's order, each micro-batch's weight pass once and
// after its own backward; stage s keeps s of them waiting, so every stage holds min(m, p)
// micro-batches (1F1B's first stage's peak) until their weight passes free them.
TEST(PipelineSchedule, ZeroBubbleSplitsEachBackwardAndKeepsOneFOneBsOrder) {
  const int stages = 4;
  for (int microbatches : {2, 4, 8})
    for (int s = 0; s < stages; ++s) {
      auto ops = stage_schedule(PipelineScheduleKind::kZeroBubble, s, stages, microbatches, 1);
      ASSERT_EQ(ops.size(), 3u * microbatches);
      std::vector<PipeOp> without_weights, weights;
      for (PipeOp op : ops) {
        EXPECT_EQ(op.weight_apart, op.kind == Kind::kBackward);
        op.weight_apart = false;
        (op.kind == Kind::kWeight ? weights : without_weights).push_back(op);
      }
      EXPECT_EQ(without_weights,
                stage_schedule(PipelineScheduleKind::kOneFOneB, s, stages, microbatches, 1));
      for (int m = 0; m < microbatches; ++m) {
        EXPECT_EQ(weights[m], (PipeOp{Kind::kWeight, m, 0}));
        auto backward = std::find(ops.begin(), ops.end(), PipeOp{Kind::kBackward, m, 0, true});
        EXPECT_LT(backward, std::find(ops.begin(), ops.end(), PipeOp{Kind::kWeight, m, 0}));
      }
      EXPECT_EQ(peak_in_flight(ops), std::min(microbatches, stages)) << "stage " << s;
    }
  // The first stage (1F1B's peak already) runs each weight pass straight after its backward; the
  // last keeps three waiting and runs every weight pass after its last backward.
  auto first = stage_schedule(PipelineScheduleKind::kZeroBubble, 0, 4, 4, 1);
  EXPECT_EQ(first[4], (PipeOp{Kind::kBackward, 0, 0, true}));
  EXPECT_EQ(first[5], (PipeOp{Kind::kWeight, 0, 0}));
  auto last = stage_schedule(PipelineScheduleKind::kZeroBubble, 3, 4, 4, 1);
  EXPECT_EQ(last[7], (PipeOp{Kind::kBackward, 3, 0, true}));
  for (int m = 0; m < 4; ++m) EXPECT_EQ(last[8 + m], (PipeOp{Kind::kWeight, m, 0}));
  EXPECT_NE(check_schedule(PipelineScheduleKind::kZeroBubble, 4, 8, 2), "");
}

TEST(PipelineSchedule, RefusesCountsItCannotRun) {
  EXPECT_NE(check_schedule(PipelineScheduleKind::kInterleaved, 4, 6, 2), "");
  EXPECT_NE(check_schedule(PipelineScheduleKind::kOneFOneB, 4, 8, 2), "");
  EXPECT_EQ(check_schedule(PipelineScheduleKind::kInterleaved, 4, 8, 2), "");
}

// The peak computed without the schedule is the peak of the schedule, for every kind, stage and
// count a plan may give.
TEST(PipelineSchedule, PeakInFlightWithoutTheOpsIsThePeakOfTheOps) {
  using K = PipelineScheduleKind;
  int checked = 0;
  for (K kind : {K::kGpipe, K::kOneFOneB, K::kInterleaved, K::kZeroBubble})
    for (int stages = 1; stages <= 8; ++stages)
      for (int microbatches = 1; microbatches <= 17; ++microbatches)
        for (int chunks = 1; chunks <= 4; ++chunks) {
          if (!check_schedule(kind, stages, microbatches, chunks).empty()) continue;
          for (int s = 0; s < stages; ++s) {
            auto ops = stage_schedule(kind, s, stages, microbatches, chunks);
            ASSERT_EQ(peak_in_flight(kind, s, stages, microbatches, chunks), peak_in_flight(ops))
                << schedule_name(kind) << " stage " << s << " of " << stages << ", " << microbatches
                << " micro-batches, " << chunks << " chunks";
            ++checked;
          }
        }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace scaleout::core
