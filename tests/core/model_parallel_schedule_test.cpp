// The NCCL calls of a model-parallel plan, printed without a GPU, and the check that a schedule
// completes under NCCL's group semantics (so that a schedule that would hang the GPUs is found
// here).
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "core/plan/input_error.hpp"
#include "exec/schedule_check.hpp"
#include "exec/schedule_fabric.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

// NCCL's grouping and its dry run live with the backends (exec/), not in core.
using namespace ::scaleout::exec;

using Groups = std::vector<std::vector<PointOp>>;

PointOp send(int peer) { return {true, peer, {0, 8}, Combine::kReplace}; }
PointOp recv(int peer) { return {false, peer, {0, 8}, Combine::kReplace}; }

TEST(NcclScheduleCheck, FindsTwoRanksThatBothReceiveFirst) {
  std::vector<Groups> hangs = {{{recv(1)}, {send(1)}}, {{recv(0)}, {send(0)}}};
  EXPECT_NE(nccl_schedule_hangs(hangs).find("rank 0 group 0 waits for ncclRecv(peer 1"),
            std::string::npos)
      << nccl_schedule_hangs(hangs);
  std::vector<Groups> completes = {{{send(1), recv(1)}}, {{recv(0), send(0)}}};
  EXPECT_EQ(nccl_schedule_hangs(completes), "");
  // Matched in the order posted on a pair: the second send meets the second receive.
  std::vector<Groups> ordered = {{{send(1)}, {send(1)}}, {{recv(0)}, {recv(0)}}};
  EXPECT_EQ(nccl_schedule_hangs(ordered), "");
}

// Tensor 2 x pipeline 2 x data 2 on one node of 8 devices.
Plan two_by_two_by_two(const std::string& schedule, const std::string& test) {
  std::string v = schedule == "interleaved" ? ", virtual_stages: 2" : "";
  return testing::load_text(
      "nccl-mp-" + test + "-" + schedule,
      std::string(testing::kInlineCluster) +
          "workload:\n  name: gpt\n"
          "  transformer: { layers: 4, hidden: 256, heads: 4, sequence: 128, vocabulary: 1000 }\n"
          "parallelism: { tensor: 2, pipeline: 2, schedule: " +
          schedule + v +
          " }\n"
          "strategy: { kind: ring }\n"
          "training: { workers: 8, global_batch: 8 }\n");
}

// Sends from `rank` to `peer` in all its groups.
int sends(const Groups& groups, int peer) {
  int n = 0;
  for (const auto& g : groups)
    n += static_cast<int>(std::count_if(
        g.begin(), g.end(), [peer](const PointOp& op) { return op.send && op.peer == peer; }));
  return n;
}

TEST(NcclSchedule, TwoByTwoByTwoCompletesForGpipeOneFOneBAndZeroBubble) {
  for (const char* schedule : {"gpipe", "1f1b", "zero_bubble"}) {
    SCOPED_TRACE(schedule);
    Plan plan = two_by_two_by_two(schedule, "complete");
    auto ranks = schedule_plan(plan);
    ASSERT_EQ(ranks.size(), 8u);
    EXPECT_EQ(nccl_schedule_hangs(ranks), "") << format_schedule(ranks);
    // Rank 0 (stage 0) sends each of its 4 micro-batches' activations to rank 4 (stage 1), and
    // rank 4 each activation gradient back.
    EXPECT_EQ(sends(ranks[0], 4), 4);
    EXPECT_EQ(sends(ranks[4], 0), 4);
    // The tensor pair (0, 1) and the data pair (0, 2) talk too.
    EXPECT_GT(sends(ranks[0], 1), 0);
    EXPECT_GT(sends(ranks[0], 2), 0);
  }
}

// DualPipeV and DualPipe over the same ranks. DualPipeV: rank 0 sends stage 1 the 4 activations
// of its chunk 0 and the 4 gradients of its chunk 1 (the model's last, with the output layer), and
// stage 1 turns each micro-batch from one chunk to the other without a transfer. DualPipe: 2 of the
// 4 micro-batches enter at each end, so each stage sends the other 2 of each.
TEST(NcclSchedule, TwoByTwoByTwoCompletesForDualPipeVAndDualPipe) {
  for (auto [schedule, each_way] : {std::pair{"dualpipev", 8}, std::pair{"dualpipe", 4}}) {
    SCOPED_TRACE(schedule);
    auto ranks = schedule_plan(two_by_two_by_two(schedule, "complete"));
    ASSERT_EQ(ranks.size(), 8u);
    EXPECT_EQ(nccl_schedule_hangs(ranks), "") << format_schedule(ranks);
    EXPECT_EQ(sends(ranks[0], 4), each_way);
    EXPECT_EQ(sends(ranks[4], 0), each_way);
    EXPECT_EQ(sends(ranks[4], 4), 0);
  }
}

// Experts under DualPipeV and DualPipe (pipeline 2 x expert 4, 4 micro-batches a replica): the
// overlapped pairs interleave the two passes' all-to-alls, the same order on every member of an
// expert group, and the stages' sends follow each pair; also with dense leading layers on chunks
// of their own (5 layers as 3 and 2, MoE from the third: pairs of one chunk's MoE layers and
// another's); and the deduplicated exchange in FP8 over nodes of 2, its cut blocks across.
TEST(NcclSchedule, OverlappedPairsOfExpertLayersComplete) {
  struct Case {
    const char *schedule, *layers, *moe;
  };
  for (const Case& c :
       {Case{"dualpipev", "4", ""}, Case{"dualpipe", "4", ""},
        Case{"dualpipe, first_stage_layers: 3, last_stage_layers: 2", "5", ", first_dense: 2"},
        Case{"dualpipev, expert_alltoall: deduplicated, expert_dispatch_precision: fp8", "4",
             ""}}) {
    SCOPED_TRACE(c.schedule);
    std::string cluster = testing::kInlineCluster;
    if (std::string(c.schedule).find("deduplicated") != std::string::npos) {
      cluster.replace(cluster.find("devices_per_node: 8"), 19, "devices_per_node: 2");
      cluster.replace(cluster.find("nodes: 2"), 8, "nodes: 4");
    }
    auto ranks = schedule_plan(testing::load_text(
        "nccl-mp-pairs", cluster +
                             "workload:\n  name: moe\n"
                             "  transformer: { layers: " +
                             c.layers +
                             ", hidden: 256, heads: 4, sequence: 128, "
                             "vocabulary: 1000, moe: { experts: 4, top_k: 2" +
                             c.moe +
                             " } }\n"
                             "parallelism: { pipeline: 2, expert: 4, schedule: " +
                             c.schedule +
                             " }\n"
                             "strategy: { kind: ring }\n"
                             "training: { workers: 8, global_batch: 16 }\n"));
    ASSERT_EQ(ranks.size(), 8u);
    EXPECT_EQ(nccl_schedule_hangs(ranks), "") << format_schedule(ranks);
    EXPECT_GT(sends(ranks[0], 1), 0);  // its expert group's
  }
}

TEST(NcclSchedule, AReorderedStageIsFoundToHang) {
  Plan plan = two_by_two_by_two("1f1b", "reordered");
  auto ranks = schedule_plan(plan);
  // Stage 1's rank 4 posts its first receive from stage 0 last.
  Groups& g = ranks[4];
  auto first = std::find_if(g.begin(), g.end(), [](const auto& group) {
    return std::any_of(group.begin(), group.end(),
                       [](const PointOp& op) { return !op.send && op.peer == 0; });
  });
  ASSERT_NE(first, g.end());
  // Waiting for micro-batch 0's activations only at the end leaves rank 0 waiting to send them
  // and rank 4 waiting to send gradients that rank 0 takes after that.
  auto moved = *first;
  g.erase(first);
  g.push_back(moved);
  EXPECT_NE(nccl_schedule_hangs(ranks), "");
}

TEST(NcclSchedule, InterleavedIsRefusedByName) {
  EXPECT_THROW(schedule_plan(two_by_two_by_two("interleaved", "refused")), InputError);
}

TEST(NcclSchedule, DataParallelStrategiesComplete) {
  for (auto kind : {StrategyKind::kRing, StrategyKind::kHalvingDoubling, StrategyKind::kTree,
                    StrategyKind::kTorus2d}) {
    Plan plan = testing::collective_plan(testing::switch_cluster(8, 1e9, 1e-6), kind, 8, 1000);
    EXPECT_EQ(nccl_schedule_hangs(schedule_plan(plan)), "") << strategy_name(kind);
  }
}

}  // namespace
}  // namespace scaleout::core
