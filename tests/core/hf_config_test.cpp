// Hugging Face configs read into transformers: each model's parameters as scaleout counts them
// against the total its model card publishes (the weights' element count), and refusals named.
#include "core/hf_config.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "core/input_error.hpp"
#include "core/plan_loader.hpp"
#include "core/transformer.hpp"
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
        Published{"mistral-7b", 7241732096.0}, Published{"qwen2-7b", 7615616512.0},
        Published{"gpt2", 124439808.0}, Published{"gpt-neox-20b", 20554567680.0},
        Published{"falcon-7b", 6921720704.0}}) {
    HfModel m = read_hf_config(config(p.file));
    double counted = transformer_parameters(m.shape);
    EXPECT_LT(std::fabs(counted - p.parameters) / p.parameters, 5e-4)
        << p.file << ": " << counted << " against " << p.parameters;
  }
}

// The architecture's features, as each family writes them.
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
  std::string mixtral = error_of(config("mixtral-8x7b"));
  EXPECT_NE(mixtral.find("model_type"), std::string::npos) << mixtral;
  EXPECT_NE(mixtral.find("mixtures of experts"), std::string::npos) << mixtral;
  std::string gemma = error_of(config("gemma-7b"));
  EXPECT_NE(gemma.find("heads are wider than hidden / heads"), std::string::npos) << gemma;
  // A family read here whose heads are not hidden / heads wide is refused at head_dim.
  scaleout::testing::TempDir dir("hf-head-dim");
  std::string wide = dir.write("config.json",
                               R"({"model_type": "llama", "hidden_size": 4096,
                                   "intermediate_size": 11008, "num_attention_heads": 32,
                                   "num_hidden_layers": 2, "vocab_size": 32000,
                                   "max_position_embeddings": 4096, "head_dim": 256})");
  std::string head_dim = error_of(wide);
  EXPECT_NE(head_dim.find("field 'head_dim': 256 x 32 heads is not the hidden size 4096"),
            std::string::npos)
      << head_dim;
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
