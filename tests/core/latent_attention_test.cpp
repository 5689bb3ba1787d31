// DeepSeek's multi-head latent attention and dense leading layers: a small model's parameters,
// FLOPs, products and memory worked out by hand, and a plan that names them loading, saving and
// loading back, or refused where stages would differ.
#include <gtest/gtest.h>

#include <string>

#include "core/model/model_memory.hpp"
#include "core/model/transformer.hpp"
#include "core/model/transformer_products.hpp"
#include "core/parallel/model_split.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

// 2 layers, hidden 8, 2 heads, 4 tokens, vocabulary 16, a GeLU MLP of 32; a query latent of 4,
// a key-value latent of 2, heads' query and key parts of 2 (from the latent) + 1 (rotary), values
// of 3.
TransformerShape tiny(int q_rank = 4) {
  TransformerShape t;
  t.layers = 2, t.hidden = 8, t.heads = 2, t.kv_heads = 2, t.sequence = 4, t.vocabulary = 16;
  t.ffn_hidden = 32;
  LatentAttention a;
  a.q_rank = q_rank, a.kv_rank = 2, a.rope_dim = 1, a.nope_dim = 2, a.value_dim = 3;
  t.latent = a;
  return t;
}

// Queries 2 x (2 + 1) = 6 wide, keys 6, values and the projection's input 2 x 3 = 6. Down
// projections 8 x (4 + 2 + 1) = 56, query up 4 x 6 = 24, key-value up 2 x (2 x 2 + 6) = 20,
// output 6 x 8 = 48: 148. No biases; the latents' norms 4 + 2 and the layer's 32: 38. MLP
// 512 + 40. A layer: 738. Without a query latent: down 8 x 3 = 24, queries 8 x 6 = 48: 140 and
// norms 34.
TEST(LatentAttention, ParametersCountTheLatentsProjections) {
  TransformerShape t = tiny();
  EXPECT_DOUBLE_EQ(query_width(t), 6);
  EXPECT_DOUBLE_EQ(key_value_width(t), 12);
  EXPECT_DOUBLE_EQ(attention_output_width(t), 6);
  EXPECT_DOUBLE_EQ(latent_down_parameters(t), 56);
  EXPECT_DOUBLE_EQ(dense_layer_parameters(t), 738);
  EXPECT_DOUBLE_EQ(dense_layer_parameters(tiny(0)), 140 + 34 + 552);
  EXPECT_DOUBLE_EQ(latent_down_parameters(tiny(0)), 24);
}

// Forward FLOPs a sequence: 2 x 4 x (148 + 512) = 5,280 for the matrices and 2 x 16 x (6 + 6) =
// 384 for the scores (over 3 wide heads) and the context (over values 3 wide); the products'
// own FLOPs add up to the same.
TEST(LatentAttention, FlopsAndProductsAgree) {
  TransformerShape t = tiny();
  EXPECT_DOUBLE_EQ(layer_forward_flops(t), 5664);
  double products = 0;
  for (const MatrixProduct& p : layer_products(t, 1, 1)) products += p.flops();
  EXPECT_DOUBLE_EQ(products, 5664);
  // A tensor group of 2: the down projections whole on each device, the rest split by heads.
  std::vector<MatrixProduct> p = layer_products(t, 1, 2);
  ASSERT_EQ(p.size(), 9u);
  EXPECT_EQ(p[0].name, "q_down");
  EXPECT_DOUBLE_EQ(p[0].n, 4);
  EXPECT_EQ(p[1].name, "q_up");
  EXPECT_DOUBLE_EQ(p[1].n, 3);
  EXPECT_EQ(p[2].name, "kv_down");
  EXPECT_DOUBLE_EQ(p[2].n, 3);
  EXPECT_EQ(p[3].name, "kv_up");
  EXPECT_DOUBLE_EQ(p[3].n, 5);
  EXPECT_EQ(p[4].name, "scores");
  EXPECT_DOUBLE_EQ(p[4].batch, 1);
  EXPECT_DOUBLE_EQ(p[4].k, 3);
  EXPECT_EQ(p[6].name, "projection");
  EXPECT_DOUBLE_EQ(p[6].k, 3);
  EXPECT_EQ(layer_products(tiny(0), 1, 1).front().name, "q_up");  // no query latent
  // Under sequence parallelism each device runs the down projections over its half of the tokens.
  std::vector<MatrixProduct> split = layer_products(t, 1, 2, false, 1, 2);
  EXPECT_DOUBLE_EQ(split[0].m, 2);
  EXPECT_DOUBLE_EQ(split[2].m, 2);
  EXPECT_DOUBLE_EQ(split[1].m, 4);  // the up projections take the gathered latents
}

// Activations of a micro-batch of 1 (s b h = 32), no recomputation, tensor 1, in units of s b h:
// whole 10 and the latents 2 x (2 x 4 + 2 x 2 + 1) / 8 = 3.25; attention 4 x (6 + 6) / 8 = 6,
// MLP 4 x 32 / 8 = 16, scores 5 x 2 x 4 / 8 = 5: 40.25 s b h = 1,288 bytes.
TEST(LatentAttention, ActivationsKeepTheLatents) {
  EXPECT_DOUBLE_EQ(layer_activation_bytes(tiny(), 1, 1, false, Recompute::kNone), 1288);
}

// Dense leading layers (DeepSeek's first_k_dense_replace): of 10 layers with one MoE layer every
// 2, those from the 3rd on are 4, 6 and 8.
TEST(LatentAttention, FirstDenseLayersPrecedeTheMixture) {
  TransformerShape t = tiny();
  t.layers = 10;
  MoeShape m;
  m.experts = 4, m.top_k = 2, m.expert_ffn_hidden = 16, m.every = 2;
  t.moe = m;
  EXPECT_EQ(moe_layer_count(t), 5);  // 0, 2, 4, 6, 8
  t.moe->first_dense = 3;
  EXPECT_EQ(moe_layer_count(t), 3);
  t.moe->every = 1;
  EXPECT_EQ(moe_layer_count(t), 7);
}

std::string plan_text(const std::string& parallelism, const std::string& moe) {
  return std::string(testing::kInlineCluster) +
         "workload:\n  name: latent\n"
         "  transformer: { layers: 4, hidden: 1024, heads: 16, sequence: 1024, "
         "vocabulary: 50000, mlp: swiglu,\n"
         "    latent_attention: { q_lora_rank: 256, kv_lora_rank: 128, qk_rope_head_dim: 32, "
         "qk_nope_head_dim: 64, v_head_dim: 64 }" +
         moe + " }\nstrategy: { kind: ring }\nparallelism: " + parallelism +
         "\ntraining: { workers: 4, global_batch: 8 }\n";
}

// A plan's `latent_attention:` and `moe.first_dense` load, are written back by save_plan, and
// load again the same; with tensor 2 each device holds its share of the layers and the whole of
// the down projections: 1024 x (256 + 128 + 32) = 425,984 a layer.
TEST(LatentAttention, APlanNamesItAndSavesIt) {
  Plan plan = testing::load_text("latent-plan",
                                 plan_text("{ tensor: 2 }",
                                           ", moe: { experts: 4, top_k: 2, expert_ffn_hidden: 512, "
                                           "first_dense: 1 }"));
  const TransformerShape& t = *plan.workload.transformer;
  ASSERT_TRUE(t.latent && t.moe);
  EXPECT_EQ(t.latent->q_rank, 256);
  EXPECT_EQ(t.moe->first_dense, 1);
  EXPECT_EQ(moe_layer_count(t), 3);
  EXPECT_DOUBLE_EQ(plan.workload.parameters, transformer_parameters(t));
  ModelSplit s = model_split(plan);
  double words = 50000.0 * 1024 / 2, positions = 1024.0 * 1024;
  EXPECT_DOUBLE_EQ(stage_parameters(plan, s, 0),
                   4 * layer_parameters(t) / 2 + 4 * 425984.0 / 2 + words + positions);
  testing::TempDir dir("latent-saved");
  std::string saved = (dir.path() / "saved.yaml").string();
  save_plan(plan, saved);
  Plan again = core::load_plan(saved);
  const TransformerShape& back = *again.workload.transformer;
  ASSERT_TRUE(back.latent && back.moe);
  EXPECT_EQ(back.latent->kv_rank, 128);
  EXPECT_EQ(back.latent->rope_dim, 32);
  EXPECT_EQ(back.latent->nope_dim, 64);
  EXPECT_EQ(back.latent->value_dim, 64);
  EXPECT_EQ(back.moe->first_dense, 1);
  EXPECT_DOUBLE_EQ(again.workload.parameters, plan.workload.parameters);
}

std::string error_of(const std::string& name, const std::string& yaml) {
  try {
    testing::load_text(name, yaml);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A first_dense that leaves no MoE layer is refused with the field named, as is a key-value head
// count beside latents.
TEST(LatentAttention, WhatIsNotModelledIsRefused) {
  // A workload in a file of its own: the error names that file and its line.
  testing::TempDir dir("latent-workload");
  std::string workload = dir.write(
      "model.yaml",
      "name: m\ntransformer: { layers: 4, hidden: 64, heads: 4, sequence: 8, vocabulary: 16,\n"
      "  moe: { experts: 4, every: 2, first_dense: 3 } }\n");
  std::string plan = dir.write("plan.yaml", std::string(testing::kInlineCluster) +
                                                "workload: model.yaml\nstrategy: { kind: ring }\n"
                                                "parallelism: { pipeline: 2 }\n"
                                                "training: { workers: 4, global_batch: 8 }\n");
  std::string own_file;
  try {
    load_plan(plan);
  } catch (const InputError& e) {
    own_file = e.what();
  }
  EXPECT_NE(own_file.find(workload + ":3:"), std::string::npos) << own_file;
  std::string none_left = error_of(
      "latent-none", plan_text("{ tensor: 1 }", ", moe: { experts: 4, every: 2, first_dense: 3 }"));
  EXPECT_NE(none_left.find("first_dense"), std::string::npos) << none_left;
  EXPECT_NE(none_left.find("no MoE layer"), std::string::npos) << none_left;
  std::string yaml = plan_text("{ tensor: 1 }", ", kv_heads: 4");
  std::string kv = error_of("latent-kv", yaml);
  EXPECT_NE(kv.find("kv_heads"), std::string::npos) << kv;
}

}  // namespace
}  // namespace scaleout::core
