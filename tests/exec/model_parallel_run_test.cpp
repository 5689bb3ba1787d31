// A model-parallel plan executed for real: 8 CPU processes over Gloo (tensor 2 x pipeline 2 x
// data 2), each stage checking that every transfer carries the micro-batch its neighbour meant
// for it, every tensor all-reduce and the data group's gradient summed exactly. Breaking the
// schedule must be caught.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "core/model/model_parallel_work.hpp"
#include "exec/local_run.hpp"
#include "exec/rank_steps.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/exec/quick_options.hpp"

namespace scaleout::exec {
namespace {

// `name`: the plan's folder, one per test (tests run side by side).
core::Plan two_by_two_by_two(const std::string& name, const std::string& parallelism) {
  return testing::load_text(
      name,
      std::string(testing::kInlineCluster) +
          "workload:\n  name: gpt-tiny\n"
          "  transformer: { layers: 4, hidden: 64, heads: 4, sequence: 32, vocabulary: 100 }\n"
          "parallelism: { tensor: 2, pipeline: 2" +
          parallelism +
          " }\n"
          "strategy: { kind: ring }\n"
          "training: { workers: 8, global_batch: 8, steps: 2 }\n");
}

ExecOptions quick() { return testing::quick_options(); }

TEST(ModelParallelRun, EveryScheduleMovesWhatItShouldWithExactSums) {
  for (const char* extra : {"", ", schedule: gpipe", ", schedule: interleaved, virtual_stages: 2",
                            ", recompute: full, zero: 3, sequence_parallel: true", ", zero: 2",
                            ", overlap_grad_reduce: true, bucket_size: 1",
                            ", schedule: interleaved, virtual_stages: 2, zero: 1, "
                            "overlap_grad_reduce: true, bucket_size: 1",
                            ", zero: 1, overlap_grad_reduce: true, bucket_size: 1, "
                            "overlap_param_gather: true",
                            ", sequence_parallel: true, tp_comm_overlap: true, "
                            "overlap_grad_reduce: true, bucket_size: 1",
                            ", schedule: zero_bubble, recompute: full, zero: 1",
                            ", schedule: dualpipev, recompute: full, zero: 1",
                            ", schedule: dualpipe, recompute: full, zero: 1"}) {
    SCOPED_TRACE(extra);
    core::RunResult r = run_local(two_by_two_by_two("mp-run-schedules", extra), quick());
    EXPECT_EQ(r.engine, "cpu");
    EXPECT_EQ(r.wrong, 0);
    ASSERT_TRUE(r.model_parallel);
    EXPECT_EQ(r.model_parallel->data, 2);
    EXPECT_EQ(r.model_parallel->microbatches, 4);
    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_GT(r.step_time_s, 0);
    EXPECT_GT(r.model_parallel->tensor_comm_s, 0);
    EXPECT_GT(r.model_parallel->data_comm_s, 0);
    // The gradient a data group exchanges, as simulate reports it (run printed 0.0 MB).
    core::Plan plan = two_by_two_by_two("mp-run-bytes", extra);
    EXPECT_GT(r.bytes, 0);
    EXPECT_DOUBLE_EQ(r.bytes, core::model_parallel_work(plan).gradient_bytes);
  }
}

// Context groups of 2 (tensor 2 x context 2 x pipeline 2, one replica of 8 sequences): every
// layer's key-value blocks arrive from their owners around the ring, or all-gathered with their
// gradient reduce-scattered, and the gradient is summed over the context x data ranks.
TEST(ModelParallelRun, ContextGroupsPassEveryBlockAndSumTheGradient) {
  for (const char* extra :
       {", context: 2", ", context: 2, context_exchange: allgather, recompute: full",
        ", context: 2, recompute: selective, sequence_parallel: true, tp_comm_overlap: true, "
        "overlap_grad_reduce: true, bucket_size: 1, zero: 1",
        ", context: 2, recompute: full, zero: 3"}) {
    SCOPED_TRACE(extra);
    core::RunResult r = run_local(two_by_two_by_two("mp-run-context", extra), quick());
    EXPECT_EQ(r.wrong, 0);
    ASSERT_TRUE(r.model_parallel);
    EXPECT_EQ(r.model_parallel->context, 2);
    EXPECT_EQ(r.model_parallel->data, 1);
    EXPECT_EQ(r.model_parallel->microbatches, 8);
    EXPECT_GT(r.model_parallel->context_comm_s, 0);
    EXPECT_GT(r.model_parallel->data_comm_s, 0);
  }
}

// A tiny mixture of experts (4 layers, 4 experts, 2 a token; `layers` and the `moe` fields after
// the experts replace those) on 8 CPUs in four nodes of 2, with pipeline 2 x expert 4 and `extra`
// parallelism; `global_batch` sequences a step.
core::Plan moe_on_node_pairs(const std::string& name, const std::string& extra, int global_batch,
                             const std::string& layers = "layers: 4",
                             const std::string& moe = "top_k: 2") {
  return testing::load_text(
      name,
      "cluster:\n  name: pairs\n  devices_per_node: 2\n  device: { flops: 100TFLOPS }\n"
      "  intra_node: { bandwidth: 150GB/s, latency: 1us }\n"
      "  nic: { bandwidth: 100Gbps, latency: 2us }\n  nodes: 4\n"
      "workload:\n  name: moe-tiny\n"
      "  transformer: { " +
          layers +
          ", hidden: 64, heads: 4, sequence: 32, vocabulary: 100,"
          " moe: { experts: 4, " +
          moe +
          " } }\n"
          "parallelism: { pipeline: 2, expert: 4" +
          extra +
          " }\n"
          "strategy: { kind: ring }\n"
          "training: { workers: 8, global_batch: " +
          std::to_string(global_batch) + ", steps: 2 }\n");
}

// Experts over two nodes of 2 (pipeline 2 x expert 4, so each stage's expert group spans two
// nodes): the hierarchical all-to-all relays each token segment through the member of its place on
// the sender's node, and every segment still reaches its expert from its sender and comes back.
TEST(ModelParallelRun, HierarchicalAllToAllDeliversEveryTokenAcrossNodes) {
  core::RunResult r =
      run_local(moe_on_node_pairs("mp-run-hier", ", expert_alltoall: hierarchical", 8), quick());
  EXPECT_EQ(r.wrong, 0);
  ASSERT_TRUE(r.model_parallel);
  EXPECT_EQ(r.model_parallel->expert, 4);
  EXPECT_EQ(r.model_parallel->expert_alltoall, "hierarchical");
  EXPECT_GT(r.model_parallel->expert_comm_s, 0);
}

// The deduplicated all-to-all on the same pairs of nodes, tokens to the experts in FP8: of each
// node's block only the distinct tokens' share crosses (5/6 here: a token's 2 of 4 experts miss
// the other node's 2 with chance 1/6), and every element that crosses, and every one that stays
// in the node, arrives from its sender, both ways (DualPipeV's pairs: the next test).
TEST(ModelParallelRun, DeduplicatedAllToAllDeliversWhatCrosses) {
  core::RunResult r = run_local(
      moe_on_node_pairs("mp-run-dedup",
                        ", expert_alltoall: deduplicated, expert_dispatch_precision: fp8", 16),
      quick());
  EXPECT_EQ(r.wrong, 0);
  ASSERT_TRUE(r.model_parallel);
  EXPECT_EQ(r.model_parallel->expert_alltoall, "deduplicated");
  EXPECT_EQ(r.model_parallel->expert_dispatch_precision, "fp8");
  EXPECT_GT(r.model_parallel->expert_comm_s, 0);
}

// DualPipe's overlapped pairs (4 micro-batches a replica): one pass's all-to-alls run while the
// other pass computes, each pass on its own token buffers (labelled apart, so that passes sharing
// one would be caught), and every token still reaches its expert from its sender and comes back.
TEST(ModelParallelRun, DualPipePairsDeliverEveryTokenOfBothPasses) {
  for (const char* extra : {", schedule: dualpipev", ", schedule: dualpipe",
                            ", schedule: dualpipev, recompute: full, "
                            "expert_alltoall: hierarchical",
                            ", schedule: dualpipev, expert_alltoall: deduplicated, "
                            "expert_dispatch_precision: fp8"}) {
    SCOPED_TRACE(extra);
    core::RunResult r = run_local(moe_on_node_pairs("mp-run-pairs", extra, 16), quick());
    EXPECT_EQ(r.wrong, 0);
    ASSERT_TRUE(r.model_parallel);
    EXPECT_EQ(r.model_parallel->microbatches, 4);
    EXPECT_GT(r.model_parallel->expert_comm_s, 0);
  }
}

// Dense leading layers on their own chunks: 5 layers, MoE from the third, under DualPipe as 3 and
// 2 (the first chunk one MoE layer, the last two) and under 1F1B as 2 and 2 of 4 (stage 0 none):
// each chunk runs its own layers' all-to-alls and every token still comes back.
TEST(ModelParallelRun, ChunksOfOtherLayerKindsDeliverEveryToken) {
  for (const char* extra :
       {", schedule: dualpipe, first_stage_layers: 3, last_stage_layers: 2", ""}) {
    SCOPED_TRACE(extra);
    core::Plan plan = moe_on_node_pairs(
        "mp-run-kinds", extra, 16, *extra ? "layers: 5" : "layers: 4", "top_k: 2, first_dense: 2");
    core::RunResult r = run_local(plan, quick());
    EXPECT_EQ(r.wrong, 0);
    ASSERT_TRUE(r.model_parallel);
    EXPECT_GT(r.model_parallel->expert_comm_s, 0);
    bool warned = false;
    for (const std::string& w : r.warnings) warned |= w.find("mean layer") != std::string::npos;
    EXPECT_TRUE(warned);
  }
}

TEST(ModelParallelRun, ABrokenScheduleIsCaught) {
  ExecOptions o = quick();
  o.faults.break_schedule_rank = 0;  // stage 0 sends micro-batch 1 before micro-batch 0
  core::RunResult r = run_local(two_by_two_by_two("mp-run-broken", ""), o);
  // Both swapped micro-batches land where the other was expected, every element of them.
  EXPECT_GT(r.wrong, 0);
}

TEST(ModelParallelRun, AReceiveThatNeverLandedIsCaught) {
  ExecOptions o = quick();
  // Stage 1: its slot for step 1's first input keeps step 0's data.
  o.faults.stale_receive_rank = 4;
  core::RunResult r = run_local(two_by_two_by_two("mp-run-stale", ""), o);
  EXPECT_GT(r.wrong, 0);
}

// Each rank's fabric clock starts when the fabric is made, at a different moment on each rank:
// the reports count from the ranks' meeting, so that steps compare across ranks.
TEST(ModelParallelRun, ReportsCountFromTheRanksMeeting) {
  ModelParallelStepReports reports;
  reports.origin = 2.5;
  core::ModelParallelStepTimes t;
  t.start = 3, t.end = 7.25, t.compute_s = 1, t.wrong = 4;
  reports.step_done(0, t);
  ASSERT_EQ(reports.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(reports.steps[0]["start"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(reports.steps[0]["end"].get<double>(), 4.75);
  EXPECT_DOUBLE_EQ(reports.steps[0]["compute"].get<double>(), 1);  // durations as they were
  EXPECT_EQ(reports.steps[0]["wrong"].get<long>(), 4);
}

}  // namespace
}  // namespace scaleout::exec
