// Pipeline chunks that hold other layer kinds than the rest (DeepSeek-V3's dense leading layers):
// each chunk's MoE layers counted from where it sits, its all-to-alls, its experts' parameters,
// and the engines agreeing on such a plan.
#include <gtest/gtest.h>

#include <string>

#include "analytic/analytic.hpp"
#include "analytic/analytic_model_parallel.hpp"
#include "core/model/model_memory.hpp"
#include "core/model/model_parallel_work.hpp"
#include "core/parallel/model_split.hpp"
#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

// testing::two_node_gpt's model (hidden 1,024, a 4h gelu MLP) with `layers` layers, MoE layers of
// 8 experts (2 a token) from `first_dense` on, on `workers` devices (16: two nodes).
std::string kinds_text(const std::string& parallelism, int layers, int first_dense,
                       int global_batch = 32, int workers = 16) {
  std::string t = testing::two_node_gpt(parallelism, workers, global_batch);
  t.replace(t.find("layers: 8"), 9, "layers: " + std::to_string(layers));
  t.replace(t.find("vocabulary: 32000"), 17,
            "vocabulary: 8, moe: { experts: 8, top_k: 2, first_dense: " +
                std::to_string(first_dense) + " }");
  return t;
}

// DeepSeek-V3's shape in small: 13 layers over DualPipe's 4 positions, 3 dense layers first (the
// first position's), 2 last, 4 in each between.
const char* kDualPipeKinds =
    "pipeline: 4, expert: 4, schedule: dualpipe, first_stage_layers: 3, last_stage_layers: 2";

TEST(StageLayerKinds, DualPipeChunksCountTheirPositionsLayers) {
  core::Plan plan = testing::load_text("kinds-dualpipe", kinds_text(kDualPipeKinds, 13, 3));
  core::ModelSplit s = core::model_split(plan);
  // Stage r holds position r (chunk 0) and position 3 - r (chunk 1).
  EXPECT_EQ(core::chunk_layers(s, 0, 0), 3);
  EXPECT_EQ(core::chunk_layers(s, 0, 1), 2);
  EXPECT_EQ(core::chunk_layers(s, 1, 0), 4);
  EXPECT_EQ(core::chunk_layers(s, 2, 1), 4);
  EXPECT_EQ(core::chunk_layers(s, 3, 0), 2);
  EXPECT_EQ(core::chunk_layers(s, 3, 1), 3);
  EXPECT_EQ(core::chunk_first_layer(s, 2, 0), 7);  // after 3 + 4
  EXPECT_EQ(core::chunk_first_layer(s, 0, 1), 11);
  EXPECT_EQ(core::chunk_moe_layers(s, 0, 0), 0);  // layers 0-2, all dense
  EXPECT_EQ(core::chunk_moe_layers(s, 0, 1), 2);
  EXPECT_EQ(core::chunk_moe_layers(s, 1, 0), 4);
  EXPECT_EQ(core::stage_moe_layers(s, 1), 8);
  EXPECT_EQ(core::stage_moe_layers(s, 3), 2);
  EXPECT_TRUE(core::layer_kinds_differ(s));
}

// Interleaved, 8 layers over 2 stages x 2 chunks: position p holds layers 2p and 2p + 1, and
// position 2 is stage 0's second chunk. One MoE layer every 2 repeats in every chunk; MoE layers
// from the second on leave the first chunk one.
TEST(StageLayerKinds, InterleavedChunksFollowTheirPositions) {
  std::string interleaved = "pipeline: 2, schedule: interleaved, virtual_stages: 2";
  core::Plan plan = testing::load_text("kinds-interleaved", kinds_text(interleaved, 8, 1));
  core::ModelSplit s = core::model_split(plan);
  EXPECT_EQ(core::chunk_moe_layers(s, 0, 0), 1);
  EXPECT_EQ(core::chunk_moe_layers(s, 1, 0), 2);
  EXPECT_EQ(core::chunk_first_layer(s, 0, 1), 4);
  EXPECT_EQ(core::chunk_moe_layers(s, 0, 1), 2);
  EXPECT_TRUE(core::layer_kinds_differ(s));
  plan.workload.transformer->moe->first_dense = 0;
  plan.workload.transformer->moe->every = 2;
  s = core::model_split(plan);
  for (int stage = 0; stage < 2; ++stage)
    for (int chunk = 0; chunk < 2; ++chunk) EXPECT_EQ(core::chunk_moe_layers(s, stage, chunk), 1);
  EXPECT_FALSE(core::layer_kinds_differ(s));
}

// A stage holds its own MoE layers' experts: 8 experts of 2 x 1,024 x 4,096 weights and 4,096 +
// 1,024 biases a MoE layer (67,149,824), a quarter on each rank of the expert group. Stage 1 holds
// 8 MoE layers, stage 3 two; the experts' data group exchanges the worst stage's.
TEST(StageLayerKinds, EachStageHoldsItsOwnLayersExperts) {
  core::Plan plan = testing::load_text("kinds-memory", kinds_text(kDualPipeKinds, 13, 3));
  core::ModelSplit s = core::model_split(plan);
  double per_layer = 67149824.0 / 4;
  EXPECT_DOUBLE_EQ(core::stage_expert_parameters(plan, s, 1), 8 * per_layer);
  EXPECT_DOUBLE_EQ(core::stage_expert_parameters(plan, s, 3), 2 * per_layer);
  core::ModelParallelWork w = core::model_parallel_work(plan, s);
  EXPECT_DOUBLE_EQ(w.expert_gradient_bytes, 8 * per_layer * 2);  // bf16 gradients
}

// 1F1B over 2 stages of 4 layers, MoE from layer 3: stage 0 holds one MoE layer, stage 1 four.
// Each forward of stage 1 runs 3 more MoE layers' two all-to-alls than stage 0's (and the output
// layer); the layers' compute is the same mean layer's on both.
TEST(StageLayerKinds, TheClosedFormChargesEachChunksOwnAllToAlls) {
  core::Plan plan =
      testing::load_text("kinds-1f1b", kinds_text("pipeline: 2, expert: 4", 8, 3, 16));
  core::ParallelState state = core::ParallelState::of(plan);
  ModelParallelCosts c = model_parallel_costs(plan, state, nullptr);
  ASSERT_GT(c.moe_layer_expert_forward, 0);
  PipeCosts p = pipe_costs(state, c);
  EXPECT_NEAR(p.forward[1][0] - p.forward[0][0], 3 * c.moe_layer_expert_forward + c.logit_forward,
              1e-12);
  EXPECT_NEAR(p.backward[1][0] - p.backward[0][0],
              3 * c.moe_layer_expert_backward + 2 * c.logit_forward, 1e-12);
  core::RunResult r = predict_analytic(plan);
  ASSERT_TRUE(r.model_parallel);
  EXPECT_EQ(r.model_parallel->stage_moe_layers, (std::vector<int>{1, 4}));
  bool warned = false;
  for (const std::string& w : r.warnings) warned |= w.find("mean layer") != std::string::npos;
  EXPECT_TRUE(warned);
}

// SimGrid runs each chunk's own all-to-alls as the closed form charges them, under 1F1B (a stage a
// node) and under DualPipe with uneven positions and dense leading layers (one node: across nodes
// the pairs' all-to-alls meet the stage transfers on the NICs, which the closed form leaves apart).
TEST(StageLayerKinds, SimGridAgreesWithTheClosedForm) {
  struct Case {
    std::string parallelism;
    int layers, first_dense, global_batch, workers;
  };
  const char* dualpipe =
      "pipeline: 4, expert: 2, schedule: dualpipe, first_stage_layers: 3, last_stage_layers: 2";
  for (const Case& k :
       {Case{"pipeline: 2, expert: 4", 8, 3, 16, 16}, Case{dualpipe, 13, 3, 16, 8}}) {
    SCOPED_TRACE(k.parallelism);
    core::Plan plan = testing::load_text(
        "kinds-sim", kinds_text(k.parallelism, k.layers, k.first_dense, k.global_batch, k.workers));
    core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
    ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.02);
    EXPECT_NEAR(sim.model_parallel->expert_comm_s / closed.model_parallel->expert_comm_s, 1.0,
                0.05);
  }
}

// DualPipe's uneven counts are the model's first and last positions': what is left must split
// evenly over the positions between.
TEST(StageLayerKinds, DualPipeRefusesPositionsThatDoNotAddUp) {
  testing::expect_refused("kinds-uneven", kinds_text(kDualPipeKinds, 12, 3), 0, "2 chunks between");
}

}  // namespace
}  // namespace scaleout::sim
