// Context parallelism: the key-value exchanges of ring attention and of Llama 3's all-gather,
// counted by hand in closed form and simulated by SimGrid; what a device computes and keeps.
#include <gtest/gtest.h>

#include "analytic/analytic.hpp"
#include "core/model/model_memory.hpp"
#include "core/model/model_parallel_work.hpp"
#include "core/parallel/model_split.hpp"
#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

// Tensor 2 x context 4 x pipeline 2 over two nodes of 8 (testing::two_node_gpt: 8 layers, hidden
// 1,024, 16 heads, 1,024 tokens, efficiency 0.5 of 100 TFLOP/s): a stage's context groups sit
// inside its node. 16 sequences, one replica: 16 micro-batches of 1.
core::Plan context_plan(const std::string& name, const std::string& extra) {
  return testing::load_text(
      name, testing::two_node_gpt("tensor: 2, context: 4, pipeline: 2" + extra, 16, 16));
}

// By hand, one layer of one micro-batch on one device:
// - a block of keys and values: 2 x 1,024 / 4 tokens x 1,024 / 2 wide x 2 bytes = 524,288 B, one
//   ring step through the node's switch (two 1 us links, 100 GB/s) 2 + 5.24288 = 7.24288 us, and
//   backward, with its gradient, 2 + 10.48576 = 12.48576 us;
// - the attention's 4 s^2 h = 4,294,967,296 FLOPs a sequence, / 2 / 4 / 0.5 on the device:
//   10.73741824 us forward, 21.47483648 us backward, a quarter of each per ring step.
// Ring: 3 steps forward of 7.24288 - 2.68435456 exposed, 3 backward of 12.48576 - 5.36870912:
// 13.67557632 + 21.35115264 = 35.02672896 us. All-gather: 3 steps forward, then a gather and a
// reduce-scatter backward: 9 x 7.24288 = 65.18592 us. Each over 4 layers x 16 micro-batches.
TEST(ContextParallel, RingAndAllGatherExposeWhatTheHandCountSays) {
  struct Case {
    const char* exchange;
    double per_layer_s;
  };
  for (Case c : {Case{"ring", 35.02672896e-6}, Case{"allgather", 65.18592e-6}}) {
    SCOPED_TRACE(c.exchange);
    core::Plan plan = context_plan(std::string("cp-hand-") + c.exchange,
                                   std::string(", context_exchange: ") + c.exchange);
    core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
    ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
    EXPECT_NEAR(closed.model_parallel->context_comm_s, 64 * c.per_layer_s, 1e-12);
    EXPECT_NEAR(sim.model_parallel->context_comm_s / closed.model_parallel->context_comm_s, 1.0,
                0.02);
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.01);
    // Step by step: coalesced, the data rings end apart on a group's members (sim/simulator.cpp).
    EXPECT_EQ(sim.fidelity, "step");
    EXPECT_EQ(closed.model_parallel->context, 4);
    EXPECT_EQ(closed.model_parallel->context_exchange, c.exchange);
    EXPECT_EQ(closed.model_parallel->data, 1);
    EXPECT_EQ(closed.model_parallel->microbatches, 16);
  }
}

// With the overlaps Megatron-Core runs beside it, with ZeRO-2 and 3 walking each layer (its
// attention first, the rest beside the collectives), recomputation and a data group of context x
// data ranks across the nodes, SimGrid and the closed form still agree: on the step within 1 %, on
// the context exchanges within 5 % (3-4 % here: the data group's ring ends a few microseconds
// apart on a context group's members, and the next step's first exchange waits that out).
TEST(ContextParallel, WithMegatronsOverlapsTheEnginesAgree) {
  for (const char* extra :
       {", recompute: full", ", context_exchange: allgather, recompute: selective",
        ", sequence_parallel: true, tp_comm_overlap: true, overlap_grad_reduce: true, zero: 1",
        ", recompute: full, zero: 3", ", context_exchange: allgather, zero: 2"}) {
    SCOPED_TRACE(extra);
    core::Plan plan = testing::load_text(
        "cp-overlaps",
        testing::two_node_gpt(std::string("tensor: 2, context: 2, pipeline: 2") + extra, 16, 16));
    core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
    ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
    EXPECT_GT(closed.model_parallel->context_comm_s, 0);
    EXPECT_NEAR(sim.model_parallel->context_comm_s / closed.model_parallel->context_comm_s, 1.0,
                0.05);
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.01);
    EXPECT_EQ(closed.model_parallel->data, 2);
  }
}

// A device of a context group of 4 computes a quarter of each sequence: a quarter of the layer's
// FLOPs (the attention's balanced over the group), a quarter of the activations sent and kept.
// The gradient is the same and ZeRO-1 shards it over context x data ranks alike.
TEST(ContextParallel, ADeviceComputesAndKeepsItsShareOfTheSequence) {
  core::Plan one = testing::load_text(
      "cp-share-one", testing::two_node_gpt("tensor: 2, pipeline: 2, zero: 1", 16, 64));
  core::Plan four = context_plan("cp-share-four", ", zero: 1");
  core::ModelParallelWork w1 = core::model_parallel_work(one), w4 = core::model_parallel_work(four);
  EXPECT_DOUBLE_EQ(w4.layer_forward_flops, w1.layer_forward_flops / 4);
  EXPECT_DOUBLE_EQ(w4.layer_backward_flops, w1.layer_backward_flops / 4);
  EXPECT_DOUBLE_EQ(w4.activation_bytes, w1.activation_bytes / 4);
  EXPECT_DOUBLE_EQ(w4.gradient_bytes, w1.gradient_bytes);
  EXPECT_DOUBLE_EQ(w4.context_block_bytes, 524288);
  core::MemoryBreakdown m1 = core::worst_stage_memory(one), m4 = core::worst_stage_memory(four);
  EXPECT_DOUBLE_EQ(m4.optimizer, m1.optimizer);  // 4 data ranks either way
  // 16 micro-batches in both; stage 0 holds 2 in flight either way.
  EXPECT_EQ(core::model_split(four).microbatches, core::model_split(one).microbatches);
  EXPECT_DOUBLE_EQ(m4.activations, m1.activations / 4);
}

// ZeRO-3 (FSDP's, with its context parallelism) shards the parameters over the context x data
// ranks: the attention's exchanges stay what the hand count above gives (they run alone, before
// the layer meets its collectives), the compute stays the same, the gathers and reduce-scatters
// come on top, and the parameters, gradients and optimizer state a device keeps shrink by the
// 4 ranks.
TEST(ContextParallel, ZeroThreeShardsOverTheContextAndDataRanks) {
  core::Plan one = context_plan("cp-zero1", ", context_exchange: ring, zero: 1");
  core::Plan three = context_plan("cp-zero3", ", context_exchange: ring, zero: 3");
  core::RunResult closed1 = predict_analytic(one), closed3 = predict_analytic(three);
  ASSERT_TRUE(closed1.model_parallel && closed3.model_parallel);
  EXPECT_NEAR(closed3.model_parallel->context_comm_s, 64 * 35.02672896e-6, 1e-12);
  EXPECT_NEAR(closed3.phases.compute_s, closed1.phases.compute_s, 1e-12);
  EXPECT_GT(closed3.model_parallel->data_comm_s, 0);
  core::MemoryBreakdown m1 = core::worst_stage_memory(one), m3 = core::worst_stage_memory(three);
  EXPECT_NEAR(m3.parameters, m1.parameters / 4, 1e-6 * m1.parameters);
  EXPECT_LT(m3.gradients, m1.gradients);
  core::RunResult sim3 = simulate(three);
  EXPECT_NEAR(sim3.step_time_s / closed3.step_time_s, 1.0, 0.01);
  EXPECT_NEAR(sim3.model_parallel->context_comm_s / closed3.model_parallel->context_comm_s, 1.0,
              0.02);
}

}  // namespace
}  // namespace scaleout::sim
