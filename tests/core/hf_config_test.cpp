// Hugging Face configs read into transformers: each model's parameters as scaleout counts them
// against the total its model card publishes (the weights' element count), and refusals named.
#include "core/formats/hf_config.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "core/model/transformer.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

std::string config(const std::string& name) {
  return scaleout::testing::source_path("tests/data/hf/" + name + ".json");
}

struct Published {
  const char* file;
  double parameters;  // the model card's total
};

// scaleout counts every layer's attention biases and two two-vector norms, and no final norm
// (docs/plan-format.md): within 0.05% of each published total.
TEST(HfConfig, ParametersAgreeWithThePublishedSizes) {
  for (const Published& p :
       {Published{"llama-2-7b", 6738415616.0}, Published{"llama-3-8b", 8030261248.0},
        Published{"llama-3-70b", 70553706496.0}, Published{"mistral-7b", 7241732096.0},
        Published{"qwen2-7b", 7615616512.0}, Published{"gpt2", 124439808.0},
        Published{"gpt-neox-20b", 20554567680.0}, Published{"falcon-7b", 6921720704.0},
        // Gemma (Gemma Team 2024, Table 2: embedding and non-embedding parameters, the
        // embedding at the config's 256,000 words): 7B's heads are 256 wide, 16 x 256 = 4,096
        // against a hidden size of 3,072; 2B's 8 x 256 are its hidden size.
        Published{"gemma-7b", 786432000.0 + 7751248896.0},
        Published{"gemma-2b", 524288000.0 + 1981884416.0}}) {
    HfModel m = read_hf_config(config(p.file));
    double counted = transformer_parameters(m.shape);
    EXPECT_LT(std::fabs(counted - p.parameters) / p.parameters, 5e-4)
        << p.file << ": " << counted << " against " << p.parameters;
  }
}

// Mixtures of experts against their model cards' element counts. Mixtral 8x7B: 46,702,792,704
// weights; a token passes through all but 6 of each layer's 8 experts (3 x 4096 x 14336 =
// 176,160,768 each): 46,702,792,704 - 32 x 6 x 176,160,768 = 12,879,925,248 ("12.9B active").
// Qwen1.5-MoE-A2.7B: 14,315,784,192 weights (24 layers of 570,560,512: attention 16,777,216 and
// its QKV biases 6,144, router 2,048 x 60, 60 experts of 3 x 2048 x 1408 = 8,650,752, the shared
// expert 34,603,008 and its gate 2,048, two norms 4,096; embeddings 2 x 151,936 x 2048; final norm
// 2,048); active: less 24 x 56 idle experts = 2,689,173,504 ("2.7B activated"). scaleout counts
// LayerNorm's two vectors and a bias on every projection, no final norm and no shared gate.
TEST(HfConfig, MixturesOfExpertsCountEveryExpertAndTheActiveOnes) {
  struct Moe {
    const char* file;
    double total, active;
    int experts, top_k, expert_ffn, shared_ffn;
  };
  for (const Moe& p : {Moe{"mixtral-8x7b", 46702792704.0, 12879925248.0, 8, 2, 14336, 0},
                       Moe{"qwen1.5-moe-a2.7b", 14315784192.0, 2689173504.0, 60, 4, 1408, 5632}}) {
    HfModel m = read_hf_config(config(p.file));
    ASSERT_TRUE(m.shape.moe) << p.file;
    EXPECT_EQ(m.shape.moe->experts, p.experts) << p.file;
    EXPECT_EQ(m.shape.moe->top_k, p.top_k) << p.file;
    EXPECT_EQ(m.shape.moe->expert_ffn_hidden, p.expert_ffn) << p.file;
    EXPECT_EQ(m.shape.moe->shared_ffn_hidden, p.shared_ffn) << p.file;
    EXPECT_LT(std::fabs(transformer_parameters(m.shape) - p.total) / p.total, 2e-5) << p.file;
    EXPECT_LT(std::fabs(active_parameters(m.shape) - p.active) / p.active, 1e-4) << p.file;
  }
  std::string yaml = hf_workload_yaml(read_hf_config(config("qwen1.5-moe-a2.7b")), "q.json");
  EXPECT_NE(yaml.find("moe: { experts: 60, top_k: 4, expert_ffn_hidden: 1408, shared_experts: 1, "
                      "shared_ffn_hidden: 5632 }"),
            std::string::npos)
      << yaml;
}

// DeepSeek-V2 and V3 (latent attention, shared experts, dense leading layers) against their
// published totals: V3 671B (its multi-token prediction module left out, as here), V2 236B,
// V2-Lite 15.7B. Their weights' shapes give 671,026,419,200, 235,741,434,880 and 15,706,484,224
// (RMSNorms of one vector, V3's router bias); scaleout counts two-vector norms and no router
// bias, within 0.001% of those. Their "activated" counts (V3 36.6B with the 0.9B output head,
// V2 21B, V2-Lite 2.4B) leave out the input embedding, which active_parameters includes.
TEST(HfConfig, DeepSeekReadsLatentAttentionAndDenseLeadingLayers) {
  struct DeepSeek {
    const char* file;
    double total, active;
    int first_dense, q_rank;
  };
  for (const DeepSeek& p : {DeepSeek{"deepseek-v3", 671e9, 36.6e9, 3, 1536},
                            DeepSeek{"deepseek-v2", 236e9, 21e9, 1, 1536},
                            DeepSeek{"deepseek-v2-lite", 15.7e9, 2.4e9, 1, 0}}) {
    HfModel m = read_hf_config(config(p.file));
    const TransformerShape& t = m.shape;
    ASSERT_TRUE(t.latent && t.moe) << p.file;
    EXPECT_EQ(t.latent->q_rank, p.q_rank) << p.file;
    EXPECT_EQ(t.latent->kv_rank, 512) << p.file;
    EXPECT_EQ(t.moe->first_dense, p.first_dense) << p.file;
    EXPECT_EQ(t.sequence, 4096) << p.file;  // the pre-training length, before YaRN
    EXPECT_LT(std::fabs(transformer_parameters(t) - p.total) / p.total, 5e-3) << p.file;
    double active = active_parameters(t) - static_cast<double>(t.vocabulary) * t.hidden;
    EXPECT_LT(std::fabs(active - p.active) / p.active, 0.03) << p.file << ": " << active;
  }
  HfModel v3 = read_hf_config(config("deepseek-v3"));
  EXPECT_NEAR(transformer_parameters(v3.shape), 671026419200.0, 1e-5 * 671026419200.0);
  EXPECT_EQ(moe_layer_count(v3.shape), 58);
  EXPECT_EQ(v3.shape.moe->shared_ffn_hidden, 2048);
  std::string yaml = hf_workload_yaml(v3, "deepseek-v3.json");
  EXPECT_NE(yaml.find("moe: { experts: 256, top_k: 8, expert_ffn_hidden: 2048, shared_experts: 1, "
                      "shared_ffn_hidden: 2048, first_dense: 3, groups: 8, group_top_k: 4 }"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("latent_attention: { q_lora_rank: 1536, kv_lora_rank: 512, "
                      "qk_rope_head_dim: 64, qk_nope_head_dim: 128, v_head_dim: 128 }"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("sequence 4096: rope_scaling.original_max_position_embeddings"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("multi-token prediction"), std::string::npos) << yaml;
  // What `import hf` writes loads as a workload with the same count.
  scaleout::testing::TempDir dir("hf-deepseek-yaml");
  Workload w = load_workload(dir.write("deepseek-v3.yaml", yaml));
  ASSERT_TRUE(w.transformer && w.transformer->latent);
  EXPECT_DOUBLE_EQ(w.parameters, transformer_parameters(v3.shape));
}

// The bundled models, written by hand from their papers, count what their released configs
// count; Mixtral 8x22B (no config here) its release's 141B and "39B active".
TEST(HfConfig, BundledModelsCountWhatTheirConfigsCount) {
  for (auto [model, released] : {std::pair{"llama3-8b", "llama-3-8b"},
                                 {"llama3-70b", "llama-3-70b"},
                                 {"mixtral-8x7b", "mixtral-8x7b"},
                                 {"deepseek-v2-lite", "deepseek-v2-lite"},
                                 {"deepseek-v3", "deepseek-v3"}}) {
    SCOPED_TRACE(model);
    Workload w =
        load_workload(scaleout::testing::source_path("models/" + std::string(model) + ".yaml"));
    ASSERT_TRUE(w.transformer);
    HfModel m = read_hf_config(config(released), w.transformer->sequence);
    EXPECT_DOUBLE_EQ(w.parameters, transformer_parameters(m.shape));
    EXPECT_DOUBLE_EQ(active_parameters(*w.transformer), active_parameters(m.shape));
    EXPECT_DOUBLE_EQ(model_flops_per_sequence(*w.transformer), model_flops_per_sequence(m.shape));
  }
  Workload mixtral = load_workload(scaleout::testing::source_path("models/mixtral-8x22b.yaml"));
  EXPECT_LT(std::fabs(mixtral.parameters - 141e9) / 141e9, 5e-3) << mixtral.parameters;
  double active = active_parameters(*mixtral.transformer);
  EXPECT_LT(std::fabs(active - 39e9) / 39e9, 1e-2) << active;
}

// The architecture's features, as each family writes them.
// Gemma 2 (its model cards' element counts, checked by hand from the configs: 9B is 256,000 x
// 3,584 embeddings, 42 layers of 198,195,200 (attention 44,040,192, GeGLU 154,140,672, four
// RMSNorms 14,336) and a final norm of 3,584): 2B, 9B and 27B within 0.05 %, read at a sequence
// its local layers' window covers.
TEST(HfConfig, GemmaTwoAtSequencesItsLocalWindowCovers) {
  for (const Published& p :
       {Published{"gemma-2-2b", 2614341888.0}, Published{"gemma-2-9b", 9241705984.0},
        Published{"gemma-2-27b", 27227128320.0}}) {
    HfModel m = read_hf_config(config(p.file), 4096);
    EXPECT_EQ(m.local_window, 4096);
    EXPECT_EQ(m.shape.sequence, 4096);
    EXPECT_TRUE(m.shape.tied_embeddings);
    EXPECT_EQ(m.shape.mlp, MlpKind::kSwiglu);
    double counted = transformer_parameters(m.shape);
    EXPECT_LT(std::fabs(counted - p.parameters) / p.parameters, 5e-4)
        << p.file << ": " << counted << " against " << p.parameters;
  }
  EXPECT_EQ(read_hf_config(config("gemma-2-27b"), 2048).shape.head_dim, 128);  // 32 x 128 < 4,608
}

TEST(HfConfig, EachFamilysFeaturesAreRead) {
  HfModel llama3 = read_hf_config(config("llama-3-8b"));
  EXPECT_EQ(llama3.shape.kv_heads, 8);
  EXPECT_EQ(llama3.shape.ffn_hidden, 14336);
  EXPECT_EQ(llama3.shape.sequence, 8192);
  EXPECT_EQ(llama3.shape.mlp, MlpKind::kSwiglu);
  EXPECT_EQ(llama3.shape.positions, PositionKind::kRotary);
  EXPECT_FALSE(llama3.shape.tied_embeddings);
  HfModel gpt2 = read_hf_config(config("gpt2"));
  EXPECT_EQ(gpt2.shape.ffn_hidden, 4 * 768);  // n_inner absent: 4 x n_embd
  EXPECT_EQ(gpt2.shape.positions, PositionKind::kLearned);
  EXPECT_TRUE(gpt2.shape.tied_embeddings);
  HfModel falcon = read_hf_config(config("falcon-7b"));
  EXPECT_EQ(falcon.shape.kv_heads, 1);     // multi-query
  EXPECT_EQ(falcon.shape.sequence, 2048);  // the config gives none
  EXPECT_EQ(read_hf_config(config("mistral-7b"), 4096).shape.sequence, 4096);  // given
  EXPECT_NE(hf_workload_yaml(llama3, "llama-3-8b.json").find("kv_heads 8: num_key_value_heads"),
            std::string::npos);
  HfModel gemma = read_hf_config(config("gemma-7b"));
  EXPECT_EQ(gemma.shape.head_dim, 256);          // 16 heads of 256: wider than 3,072 / 16
  EXPECT_EQ(gemma.shape.mlp, MlpKind::kSwiglu);  // GeGLU: the same three matrices
  EXPECT_TRUE(gemma.shape.tied_embeddings);
  EXPECT_EQ(read_hf_config(config("gemma-2b")).shape.head_dim, 0);  // 8 x 256 = 2,048: the default
  EXPECT_NE(hf_workload_yaml(gemma, "gemma-7b.json").find("  head_dim: 256\n"), std::string::npos);
}

TEST(HfConfig, WhatIsNotDescribedIsRefusedWithWhy) {
  auto error_of = [](const std::string& path) -> std::string {
    try {
      read_hf_config(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  scaleout::testing::TempDir other_dir("hf-other");
  std::string mamba =
      error_of(other_dir.write("config.json", R"({"model_type": "mamba", "hidden_size": 768})"));
  EXPECT_NE(mamba.find("model_type"), std::string::npos) << mamba;
  EXPECT_NE(mamba.find("'mamba' is not described"), std::string::npos) << mamba;
  EXPECT_NE(mamba.find("deepseek_v3"), std::string::npos) << mamba;  // the ones that are
  std::string sparse_step = error_of(
      other_dir.write("qwen.json", R"({"model_type": "qwen2_moe", "decoder_sparse_step": 2})"));
  EXPECT_NE(sparse_step.find("decoder_sparse_step"), std::string::npos) << sparse_step;
  // Gemma 2's 8,192-token context is beyond its local layers' 4,096: not modelled, so refused.
  std::string gemma2 = error_of(config("gemma-2-9b"));
  EXPECT_NE(gemma2.find("'sliding_window'"), std::string::npos) << gemma2;
  EXPECT_NE(gemma2.find("4096 or less"), std::string::npos) << gemma2;
  scaleout::testing::TempDir dir("hf-head-dim");
  std::string bad_width = error_of(dir.write("config.json",
                                             R"({"model_type": "llama", "hidden_size": 4096,
                                   "intermediate_size": 11008, "num_attention_heads": 32,
                                   "num_hidden_layers": 2, "vocab_size": 32000,
                                   "max_position_embeddings": 4096, "head_dim": 0})"));
  EXPECT_NE(bad_width.find("field 'head_dim'"), std::string::npos) << bad_width;
  std::string missing = error_of(config("nonexistent"));
  EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
  std::string not_config = error_of(scaleout::testing::source_path("tests/data/README.md"));
  EXPECT_NE(not_config.find("not a JSON config"), std::string::npos) << not_config;
}

// A plan names the config as its workload's `hf_config:` (relative to the file that names it),
// with the training sequence beside it; the counts are the config's.
TEST(HfConfig, APlansWorkloadNamesTheConfig) {
  scaleout::testing::TempDir dir("hf-workload");
  std::ifstream in(config("llama-3-8b"));
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  dir.write("config.json", json);
  auto plan_with = [&](const std::string& workload) {
    return dir.write("plan.yaml", std::string(scaleout::testing::kInlineCluster) +
                                      "workload: " + workload +
                                      "\nstrategy: { kind: ring }\ntraining: { workers: 8 }\n");
  };
  Plan plan =
      load_plan(plan_with("{ name: llama, hf_config: { file: config.json, "
                          "sequence: 4096 } }"));
  ASSERT_TRUE(plan.workload.transformer);
  EXPECT_EQ(plan.workload.transformer->sequence, 4096);
  EXPECT_EQ(plan.workload.transformer->kv_heads, 8);
  EXPECT_DOUBLE_EQ(plan.workload.parameters,
                   transformer_parameters(read_hf_config(config("llama-3-8b")).shape));
  Plan whole = load_plan(plan_with("{ name: llama, hf_config: config.json }"));
  EXPECT_EQ(whole.workload.transformer->sequence, 8192);  // the config's
  auto error_of = [](const std::string& path) -> std::string {
    try {
      load_plan(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  std::string both = error_of(plan_with(
      "{ name: x, hf_config: config.json, transformer: { layers: 1, hidden: 64, heads: 1, "
      "sequence: 8, vocabulary: 8 } }"));
  EXPECT_NE(both.find("not both"), std::string::npos) << both;
  std::string missing = error_of(plan_with("{ name: x, hf_config: nowhere.json }"));
  EXPECT_NE(missing.find("nowhere.json"), std::string::npos) << missing;
}

}  // namespace
}  // namespace scaleout::core
