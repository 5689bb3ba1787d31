// Megatron-Core's selective recomputation modules (--recompute-modules): what each drops from a
// layer's activations, worked out by hand on small models; what each runs again, from the
// device's compute model; the plan field, its refusals, and its Megatron-LM arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/formats/megatron_args.hpp"
#include "core/model/device_compute.hpp"
#include "core/model/model_parallel_work.hpp"
#include "core/model/transformer.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

// 2 layers, hidden 8, 2 heads, 4 tokens, a GeLU MLP of 32; layer 0 a MoE layer of 4 experts of
// 16, 2 a token (unfused attention). Without recomputation 41 s b h (tests/core/moe_test.cpp):
// whole 10 + the copies' mean 2, attention 8, the MLPs' mean 16 (dense 4 x 32 / 8 and routed
// 4 x 2 x 16 / 8, 16 each), scores 5.
TransformerShape tiny_moe() {
  TransformerShape t;
  t.layers = 2, t.hidden = 8, t.heads = 2, t.kv_heads = 2, t.sequence = 4, t.vocabulary = 16;
  t.ffn_hidden = 32;
  MoeShape m;
  m.experts = 4, m.top_k = 2, m.expert_ffn_hidden = 16, m.every = 2;
  t.moe = m;
  return t;
}

RecomputeModules only(bool RecomputeModules::*module) {
  RecomputeModules r;
  r.core_attn = false;
  r.*module = true;
  return r;
}

double units(const TransformerShape& t, const RecomputeModules& r) {
  return layer_activation_bytes(t, 1, 1, false, Recompute::kSelective, false, r) /
         (static_cast<double>(t.sequence) * t.hidden);
}

// Each module drops its own: core_attn the scores (5); layernorm the two norms' outputs (2 + 2);
// moe_act the routed experts' GeLU output (2 x 32 / 8 = 8 in the MoE layer: 4 on the mean);
// mlp the dense layer's 16 (8 on the mean). Together: 41 - 5 - 4 - 4 - 8 = 20.
TEST(RecomputeModules, EachDropsItsOwnActivations) {
  TransformerShape t = tiny_moe();
  EXPECT_DOUBLE_EQ(units(t, RecomputeModules{false}), 41);
  EXPECT_DOUBLE_EQ(units(t, only(&RecomputeModules::core_attn)), 36);
  EXPECT_DOUBLE_EQ(units(t, only(&RecomputeModules::layernorm)), 37);
  EXPECT_DOUBLE_EQ(units(t, only(&RecomputeModules::moe_act)), 37);
  EXPECT_DOUBLE_EQ(units(t, only(&RecomputeModules::mlp)), 33);
  RecomputeModules all{true, true, false, true, true, false};
  EXPECT_DOUBLE_EQ(units(t, all), 20);
  // Under FP8 the norms' outputs and the GeLU output are a byte each: layernorm and moe_act drop
  // half as much (2, and 1 x 32 / 8 = 4 in the MoE layer).
  double fp8_none = layer_activation_bytes(t, 1, 1, false, Recompute::kNone, true) / 32;
  double fp8_norms = layer_activation_bytes(t, 1, 1, false, Recompute::kSelective, true,
                                            only(&RecomputeModules::layernorm)) /
                     32;
  EXPECT_DOUBLE_EQ(fp8_none - fp8_norms, 2);
  // Shared experts: one of 16 beside the routed two drops its 4 x 16 / 8 = 8 (4 on the mean).
  t.moe->shared_experts = 1, t.moe->shared_ffn_hidden = 16;
  EXPECT_DOUBLE_EQ(
      units(t, RecomputeModules{false}) - units(t, only(&RecomputeModules::shared_experts)), 4);
}

// Latent attention (tests/core/latent_attention_test.cpp's: 40.25 s b h without recomputation):
// mla_up_proj drops Q, K and V (4 x (6 + 6) / 8 = 6 of queries, keys, values and the
// projection's input) down to the projection's input, 2 x 6 / 8 = 1.5: 35.75.
TEST(RecomputeModules, UpProjectionsDropTheQueriesKeysAndValues) {
  TransformerShape t;
  t.layers = 2, t.hidden = 8, t.heads = 2, t.kv_heads = 2, t.sequence = 4, t.vocabulary = 16;
  t.ffn_hidden = 32;
  LatentAttention a;
  a.q_rank = 4, a.kv_rank = 2, a.rope_dim = 1, a.nope_dim = 2, a.value_dim = 3;
  t.latent = a;
  EXPECT_DOUBLE_EQ(units(t, RecomputeModules{false}), 40.25);
  EXPECT_DOUBLE_EQ(units(t, only(&RecomputeModules::mla_up_proj)), 35.75);
}

// DeepSeek-V3's on the H800: recomputing the up projections runs their two products' forward
// again, each timed as the compute model times a product; the norms, two kernels over the
// residual stream.
TEST(RecomputeModules, BackwardRunsTheModulesForwardAgain) {
  core::Plan plan = testing::load_text(
      "recompute-ds",
      "cluster: " + std::string(SCALEOUT_SOURCE_DIR) +
          "/topologies/deepseek-h800-ib.yaml\nworkload: " + SCALEOUT_SOURCE_DIR +
          "/models/deepseek-v3.yaml\nstrategy: { kind: ring }\n"
          "parallelism: { pipeline: 1, expert: 8, recompute: selective, recompute_modules: "
          "[layernorm, mla_up_proj, moe_act] }\ntraining: { workers: 8, global_batch: 8 }\n");
  const DeviceSpec& d = plan.cluster.device;
  const TransformerShape& t = *plan.workload.transformer;
  LayerSeconds layer = layer_seconds(d, t, 1, 1, 1, 8);
  double up = 0;
  for (const MatrixProduct& p : layer_products(t, 1, 1, true, 8, 1))
    if (p.name == "q_up" || p.name == "kv_up") up += matmul_seconds(d, p);
  EXPECT_GT(up, 0);
  EXPECT_NEAR(layer.up_projections, up, 1e-12);
  EXPECT_GT(layer.norms, 0);
  EXPECT_GT(layer.expert_activation, 0);
  EXPECT_GT(layer.dense_mlp, 0);  // the 3 dense layers' share
  ModelParallelWork w = model_parallel_work(plan);
  Plan none = plan;
  none.parallelism->recompute = Recompute::kNone;
  double again =
      (w.layer_backward_flops - model_parallel_work(none).layer_backward_flops) / d.flops;
  EXPECT_NEAR(again, layer.norms + layer.up_projections + layer.expert_activation, 1e-12);
}

// The modules load, save and load back, and Megatron-LM's arguments name them.
TEST(RecomputeModules, APlanNamesItsModulesAndSavesThem) {
  std::string text = std::string(testing::kInlineCluster) +
                     "workload: { name: m, transformer: { layers: 2, hidden: 64, heads: 4, "
                     "sequence: 32, vocabulary: 100 } }\nstrategy: { kind: ring }\n"
                     "parallelism: { recompute: selective, recompute_modules: [core_attn, mlp] }\n"
                     "training: { workers: 8, global_batch: 8 }\n";
  text.replace(text.find("device: { flops: 100TFLOPS }"), 28, "device: { preset: a100-sxm4-80gb }");
  Plan plan = testing::load_text("recompute-saved", text);
  EXPECT_TRUE(plan.parallelism->recompute_modules.mlp);
  testing::TempDir dir("recompute-saved");
  std::string saved = (dir.path() / "saved.yaml").string();
  save_plan(plan, saved);
  Plan again = load_plan(saved);
  EXPECT_EQ(recompute_module_names(again.parallelism->recompute_modules),
            (std::vector<std::string>{"core_attn", "mlp"}));
  std::vector<std::string> args = megatron_arguments(plan);
  auto at = std::find(args.begin(), args.end(), "--recompute-modules");
  ASSERT_NE(at, args.end());
  EXPECT_EQ(std::vector<std::string>(at + 1, at + 3),
            (std::vector<std::string>{"core_attn", "mlp"}));
}

// Modules without selective recomputation, the whole MoE layer, a name Megatron-Core lacks, a
// module the model lacks, and modules beyond the attention with an efficiency: refused.
TEST(RecomputeModules, RefusesWhatItCannotModel) {
  auto plan = [](const std::string& parallelism, const std::string& workload_extra = "") {
    std::string text = std::string(testing::kInlineCluster) + "workload: { name: m" +
                       workload_extra +
                       ", transformer: { layers: 2, hidden: 64, heads: 4, sequence: 32, "
                       "vocabulary: 100 } }\nstrategy: { kind: ring }\nparallelism: { " +
                       parallelism + " }\ntraining: { workers: 8, global_batch: 8 }\n";
    text.replace(text.find("device: { flops: 100TFLOPS }"), 28,
                 "device: { preset: a100-sxm4-80gb }");
    return text;
  };
  testing::expect_refused("rm-full", plan("recompute: full, recompute_modules: [mlp]"), 0,
                          "applies to recompute: selective");
  testing::expect_refused("rm-moe", plan("recompute: selective, recompute_modules: [moe]"), 0,
                          "moe (the whole MoE layer again");
  testing::expect_refused("rm-name", plan("recompute: selective, recompute_modules: [attn]"), 0,
                          "'attn' is not one of");
  testing::expect_refused("rm-latent",
                          plan("recompute: selective, recompute_modules: [mla_up_proj]"), 0,
                          "the model has none");
  testing::expect_refused(
      "rm-efficiency", plan("recompute: selective, recompute_modules: [mlp]", ", efficiency: 0.5"),
      0, "charged from the device's compute model");
}

}  // namespace
}  // namespace scaleout::core
