// DeepSpeed's config in and out: a bundled plan's config comes back the same through import and
// export, the batch's three figures are derived as DeepSpeed derives them, and what is not
// modelled is listed or refused naming the key.
#include "core/formats/deepspeed_config.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

std::string source(const std::string& path) { return scaleout::testing::source_path(path); }

DeepSpeedImportOptions options(int workers, int tensor = 1, int pipeline = 1) {
  return {source("topologies/dgx-a100-ib.yaml"), source("models/gpt3-175b.yaml"), workers, tensor,
          pipeline};
}

// GPT-3 175B: tensor 8 x pipeline 16 x data 8, 1,536 sequences in micro-batches of 1, so 192
// micro-batches a replica (gradient_accumulation_steps), ZeRO 0, bf16 reduced in bf16.
TEST(DeepSpeedConfig, ABundledPlansConfigComesBackTheSame) {
  Plan plan = load_plan(source("experiments/model-parallel/gpt3-175b.yaml"));
  std::string config = deepspeed_config(plan);
  EXPECT_NE(config.find("\"gradient_accumulation_steps\": 192"), std::string::npos) << config;
  EXPECT_NE(config.find("\"train_batch_size\": 1536"), std::string::npos) << config;
  scaleout::testing::TempDir dir("ds-round-trip");
  std::string file = dir.write("ds_config.json", config);
  DeepSpeedImport imported = import_deepspeed(file, options(1024, 8, 16));
  EXPECT_TRUE(imported.left_out.empty());
  Plan again = scaleout::testing::load_text("ds-round-trip-plan", imported.yaml);
  EXPECT_EQ(deepspeed_config(again), config);
  EXPECT_EQ(again.parallelism->microbatch, 1);
  EXPECT_EQ(again.training.global_batch, 1536);
  EXPECT_EQ(again.training.gradient_precision, "bf16");
}

// 16 GPUs of tensor 2: 8 data-parallel ranks. train_batch_size 256 with micro-batches of 4 gives
// 256 / (4 x 8) = 8 accumulation steps; keys not modelled are listed.
TEST(DeepSpeedConfig, TheBatchIsDerivedAsDeepSpeedDoes) {
  scaleout::testing::TempDir dir("ds-batch");
  std::string file = dir.write("ds.json", R"({
    "train_batch_size": 256, "train_micro_batch_size_per_gpu": 4,
    "zero_optimization": { "stage": 3, "overlap_comm": true },
    "bf16": { "enabled": true }, "gradient_clipping": 1.0 })");
  DeepSpeedImport imported = import_deepspeed(file, options(16, 2));
  Plan plan = scaleout::testing::load_text("ds-batch-plan", imported.yaml);
  EXPECT_EQ(plan.parallelism->microbatch, 4);
  EXPECT_EQ(plan.parallelism->zero, 3);
  EXPECT_EQ(plan.training.global_batch, 256);
  EXPECT_EQ(plan.training.gradient_precision, "bf16");  // the precision's, as DeepSpeed reduces
  EXPECT_EQ(imported.left_out,
            (std::vector<std::string>{"gradient_clipping", "zero_optimization.overlap_comm"}));
  EXPECT_NE(imported.yaml.find("(8 micro-batches a replica)"), std::string::npos) << imported.yaml;
}

std::string refusal(const std::string& text) {
  scaleout::testing::TempDir dir("ds-refused");
  try {
    import_deepspeed(dir.write("ds.json", text), options(16));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(DeepSpeedConfig, WhatIsNotModelledIsRefusedNamingTheKey) {
  std::string offload = refusal(
      R"({"train_batch_size": 16, "zero_optimization": {"stage": 3,
          "offload_optimizer": {"device": "cpu"}}})");
  EXPECT_NE(offload.find("zero_optimization.offload_optimizer.device"), std::string::npos)
      << offload;
  std::string automatic = refusal(R"({"train_batch_size": "auto"})");
  EXPECT_NE(automatic.find("'auto'"), std::string::npos) << automatic;
  std::string disagree = refusal(
      R"({"train_batch_size": 100, "train_micro_batch_size_per_gpu": 2,
          "gradient_accumulation_steps": 2})");
  EXPECT_NE(disagree.find("is not train_micro_batch_size_per_gpu 2 x gradient_accumulation_steps 2"
                          " x 16 data-parallel ranks"),
            std::string::npos)
      << disagree;
  std::string none = refusal(R"({"zero_optimization": {"stage": 1}})");
  EXPECT_NE(none.find("train_batch_size"), std::string::npos) << none;
  // Export refuses what DeepSpeed's pipeline engine does not run: Llama 2 70B's interleaved stages.
  try {
    deepspeed_config(load_plan(source("experiments/model-parallel/llama2-70b-h100.yaml")));
    ADD_FAILURE() << "an interleaved plan was exported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("parallelism.schedule"), std::string::npos) << e.what();
  }
  std::string array = refusal("[1, 2]");
  EXPECT_NE(array.find("expected a JSON object"), std::string::npos) << array;
}

}  // namespace
}  // namespace scaleout::core
