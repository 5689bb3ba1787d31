// Mixtures of experts: a small model's parameters, FLOPs, products and memory worked out by hand,
// and a plan that names one loading, saving and loading back.
#include <gtest/gtest.h>

#include <string>

#include "core/model/device_compute.hpp"
#include "core/model/model_memory.hpp"
#include "core/model/transformer.hpp"
#include "core/model/transformer_products.hpp"
#include "core/parallel/model_split.hpp"
#include "core/parallel/parallel_state.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

// 2 layers, hidden 8, 2 heads, 4 tokens, vocabulary 16, a GeLU MLP of 32; one MoE layer every 2
// (layer 0) of 4 experts of width 16, 2 a token.
TransformerShape tiny(bool moe) {
  TransformerShape t;
  t.layers = 2, t.hidden = 8, t.heads = 2, t.kv_heads = 2, t.sequence = 4, t.vocabulary = 16;
  t.ffn_hidden = 32;
  if (moe) {
    MoeShape m;
    m.experts = 4, m.top_k = 2, m.expert_ffn_hidden = 16, m.every = 2;
    t.moe = m;
  }
  return t;
}

// Dense layer: attention 8 x 24 + 64 = 256, MLP 2 x 8 x 32 = 512, biases 24 + 8 and 32 + 8,
// norms 32: 872. MoE layer: attention 256, router 8 x 4 = 32, experts 4 x (256 + 24 biases) =
// 1,120, attention biases 32 and norms 32: 1,472. Embeddings 16 x 8 + 4 x 8 = 160. Total 2,504;
// a token skips 2 experts of 280 in the one MoE layer: 1,944 active.
TEST(Moe, ParametersCountEveryExpertAndTheActiveOnes) {
  TransformerShape t = tiny(true);
  EXPECT_EQ(moe_layer_count(t), 1);
  EXPECT_DOUBLE_EQ(dense_layer_parameters(t), 872);
  EXPECT_DOUBLE_EQ(moe_layer_parameters(t), 1472);
  EXPECT_DOUBLE_EQ(transformer_parameters(t), 2504);
  EXPECT_DOUBLE_EQ(active_parameters(t), 1944);
  EXPECT_DOUBLE_EQ(layer_parameters(t), (872 + 1472) / 2.0);  // the mean over the two layers
  EXPECT_DOUBLE_EQ(active_parameters(tiny(false)), transformer_parameters(tiny(false)));
}

// Forward FLOPs a sequence: dense 2 x 4 x 768 + 4 x 16 x 8 = 6,656; MoE 2 x 4 x (256 + 32 +
// 2 x 256) + 512 = 6,912; the mean 6,784. Logits 2 x 4 x 8 x 16 = 1,024. Model FLOPs
// 3 x (2 x 6,784 + 1,024) = 43,776.
TEST(Moe, FlopsCountTheExpertsATokenPassesThrough) {
  TransformerShape t = tiny(true);
  EXPECT_DOUBLE_EQ(layer_forward_flops(t), 6784);
  EXPECT_DOUBLE_EQ(model_flops_per_sequence(t), 43776);
}

// A MoE layer's products: the router whole, each expert's mean load of 4 x 2 / 4 = 2 tokens (padded
// to 3 by a capacity factor of 1.5), the experts' columns split over a tensor group of 2.
TEST(Moe, ExpertsRunAsGroupedProductsOfTheirLoad) {
  TransformerShape t = tiny(true);
  t.moe->capacity_factor = 1.5;
  std::vector<MatrixProduct> p = layer_products(t, 1, 2, true);
  ASSERT_EQ(p.size(), 7u);
  EXPECT_EQ(p[4].name, "router");
  EXPECT_DOUBLE_EQ(p[4].n, 4);
  EXPECT_EQ(p[5].name, "expert_up");
  EXPECT_DOUBLE_EQ(p[5].batch, 4);
  EXPECT_DOUBLE_EQ(p[5].m, 3);
  EXPECT_DOUBLE_EQ(p[5].n, 8);  // 16 / 2
  EXPECT_EQ(p[6].name, "expert_down");
  EXPECT_DOUBLE_EQ(p[6].k, 8);
  std::vector<LayerKind> kinds = layer_kinds(t);
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_DOUBLE_EQ(kinds[1].share, 0.5);
  // Shared experts add their own two products (swiglu: gate and up fused).
  t.moe->shared_experts = 1, t.moe->shared_ffn_hidden = 16, t.mlp = MlpKind::kSwiglu;
  p = layer_products(t, 1, 1, true);
  ASSERT_EQ(p.size(), 9u);
  EXPECT_EQ(p[7].name, "shared_up");
  EXPECT_DOUBLE_EQ(p[7].n, 32);
}

// Activations of a micro-batch of 1 (s b h = 32), no recomputation, tensor 1, in units of s b h:
// whole 10, attention 8, MLP 4 f / h (dense: 16; MoE: 4 x 2 x 16 / 8 = 16 for its routed width 32),
// scores 5 a s / h = 5 and the dispatched copies 2 x top_k = 4 in the MoE layer only. The mean
// layer: 10 + 2 + 8 + 16 + 5 = 41 s b h = 1,312 bytes.
TEST(Moe, ActivationsKeepTheDispatchedTokens) {
  TransformerShape t = tiny(true);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 1, 1, false, Recompute::kNone), 41 * 32);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(tiny(false), 1, 1, false, Recompute::kNone), 39 * 32);
  // FP8: whole 8, attention 8 - 1, the MLPs 3 f / h (dense 12; MoE 12), the copies top_k = 2 in
  // the MoE layer: 8 + 1 + 7 + 12 + 5 = 33 s b h.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 1, 1, false, Recompute::kNone, true), 33 * 32);
}

// The device's compute model charges the MoE layer's own products and kernels: its layer (two
// of its four experts' work a token, the router and the permutations) costs more than the dense
// layer of the same active width would, and the model's mean sits between its two kinds.
TEST(Moe, TheDeviceModelAveragesTheTwoKindsOfLayer) {
  DeviceSpec d;
  d.flops = 100e12, d.memory_bandwidth = 1e12, d.multiprocessors = 10;
  d.tile_rows = d.tile_cols = 128, d.element_bytes = 2, d.kernel_gap = 2e-6;
  TransformerShape all_moe = tiny(true);
  all_moe.moe->every = 1;
  double dense = layer_seconds(d, tiny(false), 1, 1).forward;
  double moe = layer_seconds(d, all_moe, 1, 1).forward;
  double mixed = layer_seconds(d, tiny(true), 1, 1).forward;
  EXPECT_GT(moe, dense);
  EXPECT_DOUBLE_EQ(mixed, (dense + moe) / 2);
}

// A plan's `moe:` loads, is written back by save_plan, and loads again the same.
TEST(Moe, APlanNamesItsExpertsAndSavesThem) {
  std::string yaml = std::string(testing::kInlineCluster) +
                     "workload:\n  name: moe\n"
                     "  transformer: { layers: 4, hidden: 1024, heads: 16, sequence: 1024, "
                     "vocabulary: 50000, moe: { experts: 8, top_k: 2, expert_ffn_hidden: 2048, "
                     "shared_experts: 1, every: 2, capacity_factor: 1.25 } }\n"
                     "strategy: { kind: ring }\nparallelism: { pipeline: 2 }\n"
                     "training: { workers: 4, global_batch: 8 }\n";
  Plan plan = testing::load_text("moe-plan", yaml);
  ASSERT_TRUE(plan.workload.transformer && plan.workload.transformer->moe);
  const MoeShape& m = *plan.workload.transformer->moe;
  EXPECT_EQ(m.shared_ffn_hidden, 2048);  // one shared expert of the experts' width
  EXPECT_DOUBLE_EQ(plan.workload.parameters, transformer_parameters(*plan.workload.transformer));
  testing::TempDir dir("moe-saved");
  std::string saved = (dir.path() / "saved.yaml").string();
  save_plan(plan, saved);
  Plan again = core::load_plan(saved);
  ASSERT_TRUE(again.workload.transformer && again.workload.transformer->moe);
  const MoeShape& back = *again.workload.transformer->moe;
  EXPECT_EQ(back.experts, 8);
  EXPECT_EQ(back.top_k, 2);
  EXPECT_EQ(back.every, 2);
  EXPECT_EQ(back.shared_ffn_hidden, 2048);
  EXPECT_DOUBLE_EQ(back.capacity_factor, 1.25);
  EXPECT_DOUBLE_EQ(again.workload.parameters, plan.workload.parameters);
}

// Expert parallelism over 16 ranks, tensor 2 and one stage: data 8 split into expert 4 x data 2.
// Megatron-Core's numbering (rank = tp + 2 (ep + 4 dp)): rank 0's expert-parallel group is
// {0, 2, 4, 6}, its experts' data group {0, 8} and its dense data group every even rank.
TEST(Moe, ExpertParallelismSplitsTheDataGroupsAsMegatronCore) {
  std::string yaml = std::string(testing::kInlineCluster) +
                     "workload:\n  name: moe\n"
                     "  transformer: { layers: 4, hidden: 1024, heads: 16, sequence: 1024, "
                     "vocabulary: 50000, moe: { experts: 8, top_k: 2 } }\n"
                     "strategy: { kind: ring }\n"
                     "parallelism: { tensor: 2, expert: 4, sequence_parallel: true }\n"
                     "training: { workers: 16, global_batch: 16 }\n";
  Plan plan = testing::load_text("moe-ep", yaml);
  ParallelState state = ParallelState::of(plan);
  EXPECT_EQ(state.split().data, 8);
  EXPECT_EQ(state.group(0, {ParallelDim::kExpert}), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(state.group(0, {ParallelDim::kData}), (std::vector<int>{0, 8}));
  EXPECT_EQ(state.group(0, {ParallelDim::kExpert, ParallelDim::kData}),
            (std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14}));
  // Each MoE layer's 8 experts of 2 x 1024 x 4096 weights and 4096 + 1024 biases: 67,149,824,
  // 4 layers, over tensor 2 and expert 4: 33,574,912 a device, where expert 1 holds 4 times as
  // many.
  ModelSplit s = state.split();
  EXPECT_DOUBLE_EQ(stage_expert_parameters(plan, s, 0), 33574912.0);
  Plan whole = plan;
  whole.parallelism->expert = 1;
  EXPECT_DOUBLE_EQ(stage_parameters(whole, s, 0) - stage_parameters(plan, s, 0), 3 * 33574912.0);
}

}  // namespace
}  // namespace scaleout::core
