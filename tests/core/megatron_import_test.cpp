// Plans from Megatron-LM's arguments: the bundled plans' own arguments come back the same through
// import and export, a hand-written command line keeps Megatron-LM's defaults and lists what is
// not modelled, and what cannot be planned is refused naming the flag.
#include "core/formats/megatron_import.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/formats/megatron_args.hpp"
#include "core/formats/moe_layer_pattern.hpp"
#include "core/parallel/model_split.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

using Args = std::vector<std::string>;

std::string topology() { return scaleout::testing::source_path("topologies/dgx-h100-ib.yaml"); }

Plan load_import(const std::string& name, const MegatronImport& imported) {
  return scaleout::testing::load_text(name, imported.yaml);
}

// GPT-3 175B (full recomputation, 16 stages), Llama 2 70B (GQA, SwiGLU, rotary, untied,
// interleaved, sequence parallel, selective, the distributed optimizer) and Mixtral 8x7B (experts).
TEST(MegatronImport, TheBundledPlansArgumentsComeBackTheSame) {
  for (const char* file : {"experiments/model-parallel/gpt3-175b.yaml",
                           "experiments/model-parallel/llama2-70b-h100.yaml",
                           "experiments/model-parallel/mixtral-8x7b-h100.yaml",
                           "experiments/model-parallel/mixtral-8x7b-h100-ep.yaml",
                           "experiments/model-parallel/llama3-405b-h100.yaml",
                           "experiments/model-parallel/deepseek-v2-lite-h100.yaml"}) {
    Plan plan = load_plan(scaleout::testing::source_path(file));
    Args args = megatron_arguments(plan);
    MegatronImport imported = import_megatron(args, {topology(), plan.training.workers});
    EXPECT_TRUE(imported.left_out.empty()) << file;
    Plan again = load_import("megatron-round-trip", imported);
    EXPECT_EQ(megatron_arguments(again), args) << file << "\n" << imported.yaml;
    EXPECT_DOUBLE_EQ(again.workload.parameters, plan.workload.parameters) << file;
    EXPECT_EQ(again.training.gradient_precision, plan.training.gradient_precision) << file;
  }
}

// DeepSeek-V2-Lite from its Hugging Face config (latent attention without a query latent, one
// dense layer before 26 MoE layers): out as Megatron-Core's --multi-latent-attention flags and
// --moe-layer-freq ([0]*1+[1]*26), and back.
TEST(MegatronImport, LatentAttentionAndDenseLeadingLayersComeBack) {
  std::string yaml = std::string(scaleout::testing::kInlineCluster) +
                     "workload: { name: lite, hf_config: " +
                     scaleout::testing::source_path("tests/data/hf/deepseek-v2-lite.json") +
                     " }\nstrategy: { kind: ring }\n"
                     "parallelism: { framework: megatron, tensor: 2, expert: 4, "
                     "sequence_parallel: true }\n"
                     "training: { workers: 16, global_batch: 16, precision: bf16 }\n";
  Plan plan = scaleout::testing::load_text("megatron-deepseek", yaml);
  Args args = megatron_arguments(plan);
  auto at = std::find(args.begin(), args.end(), "--moe-layer-freq");
  ASSERT_NE(at, args.end());
  EXPECT_EQ(*(at + 1), "([0]*1+[1]*26)");
  EXPECT_NE(std::find(args.begin(), args.end(), "--multi-latent-attention"), args.end());
  EXPECT_EQ(std::find(args.begin(), args.end(), "--q-lora-rank"), args.end());
  MegatronImport imported = import_megatron(args, {topology(), plan.training.workers});
  EXPECT_TRUE(imported.left_out.empty());
  Plan again = load_import("megatron-deepseek-again", imported);
  ASSERT_TRUE(again.workload.transformer->latent);
  EXPECT_EQ(again.workload.transformer->moe->first_dense, 1);
  EXPECT_EQ(megatron_arguments(again), args) << imported.yaml;
  EXPECT_DOUBLE_EQ(again.workload.parameters, plan.workload.parameters);
}

// DeepSeek-V2 (its config's 8 routing groups, 3 a token) with Megatron-Core's selective
// recomputation modules: out as --moe-router-num-groups, --moe-router-group-topk and
// --recompute-modules (a list), and back.
TEST(MegatronImport, RoutingGroupsAndRecomputeModulesComeBack) {
  std::string yaml = std::string(scaleout::testing::kInlineCluster) +
                     "workload: { name: v2, hf_config: " +
                     scaleout::testing::source_path("tests/data/hf/deepseek-v2.json") +
                     " }\nstrategy: { kind: ring }\n"
                     "parallelism: { framework: megatron, tensor: 2, expert: 4, "
                     "sequence_parallel: true, recompute: selective, recompute_modules: "
                     "[layernorm, mla_up_proj, moe_act] }\n"
                     "training: { workers: 16, global_batch: 16, precision: bf16 }\n";
  yaml.replace(yaml.find("device: { flops: 100TFLOPS }"), 28, "device: { preset: h100-sxm5-80gb }");
  Plan plan = scaleout::testing::load_text("megatron-groups", yaml);
  Args args = megatron_arguments(plan);
  auto groups = std::find(args.begin(), args.end(), "--moe-router-num-groups");
  ASSERT_NE(groups, args.end());
  EXPECT_EQ(*(groups + 1), "8");
  EXPECT_EQ(*(groups + 3), "3");  // --moe-router-group-topk
  auto modules = std::find(args.begin(), args.end(), "--recompute-modules");
  ASSERT_NE(modules, args.end());
  EXPECT_EQ(Args(modules + 1, modules + 4), (Args{"layernorm", "mla_up_proj", "moe_act"}));
  MegatronImport imported = import_megatron(args, {topology(), plan.training.workers});
  EXPECT_TRUE(imported.left_out.empty());
  Plan again = load_import("megatron-groups-again", imported);
  EXPECT_EQ(again.workload.transformer->moe->groups, 8);
  EXPECT_TRUE(again.parallelism->recompute_modules.mla_up_proj);
  EXPECT_FALSE(again.parallelism->recompute_modules.core_attn);
  EXPECT_EQ(megatron_arguments(again), args) << imported.yaml;
}

// --moe-layer-freq's lists, as Megatron-LM evaluates them, read as every and first_dense; what
// those cannot describe is refused.
TEST(MegatronImport, MoeLayerListsReadAsEveryAndFirstDense) {
  auto pattern = [](const std::string& text, int layers) {
    std::optional<MoeLayerPattern> p = parse_moe_layer_list(text, layers);
    return p ? std::to_string(p->every) + "/" + std::to_string(p->first_dense) : "none";
  };
  EXPECT_EQ(pattern("([0]*3+[1]*58)", 61), "1/3");
  EXPECT_EQ(pattern("[1, 0, 1, 0]", 4), "2/0");
  EXPECT_EQ(pattern("[0,0,1,0,1,0]", 6), "2/2");
  EXPECT_EQ(pattern("[0]*2+[1,0]*2", 6), "2/2");
  EXPECT_EQ(pattern("4", 8), "none");
  EXPECT_THROW(parse_moe_layer_list("[0,1,1,0]", 4), std::invalid_argument);  // not every n-th
  EXPECT_THROW(parse_moe_layer_list("[1]*3", 4), std::invalid_argument);      // 3 of 4 layers
  EXPECT_THROW(parse_moe_layer_list("[0]*4", 4), std::invalid_argument);      // no MoE layer
  TransformerShape t;
  t.layers = 6;
  t.moe = MoeShape{};
  t.moe->every = 2, t.moe->first_dense = 2;
  EXPECT_EQ(moe_layer_freq_text(t), "[0,0,1,0,1,0]");
  t.moe->first_dense = 0;
  EXPECT_EQ(moe_layer_freq_text(t), "2");
}

// Heads wider than hidden / heads (Gemma's): through the plan writer, out as --kv-channels and
// back; the parameters follow the width (64 heads of 256 queries, not 8,192 wide).
TEST(MegatronImport, WideHeadsComeBackThroughKvChannels) {
  Plan base =
      load_plan(scaleout::testing::source_path("experiments/model-parallel/llama2-70b-h100.yaml"));
  base.workload.transformer->head_dim = 256;
  scaleout::testing::TempDir dir("megatron-wide-heads");
  Plan plan = load_plan(dir.write("plan.yaml", plan_to_yaml(base)));
  ASSERT_EQ(plan.workload.transformer->head_dim, 256);
  EXPECT_GT(plan.workload.parameters, base.workload.parameters);
  Args args = megatron_arguments(plan);
  auto at = std::find(args.begin(), args.end(), "--kv-channels");
  ASSERT_NE(at, args.end());
  EXPECT_EQ(*(at + 1), "256");
  MegatronImport imported = import_megatron(args, {topology(), plan.training.workers});
  EXPECT_TRUE(imported.left_out.empty());
  Plan again = load_import("megatron-wide-heads-again", imported);
  EXPECT_EQ(again.workload.transformer->head_dim, 256);
  EXPECT_EQ(megatron_arguments(again), args);
  EXPECT_DOUBLE_EQ(again.workload.parameters, plan.workload.parameters);
}

// Megatron-Core's overlaps of the gradient reduce (with its bucket size), of the parameter gather
// and of the tensor collectives: out as their flags, and back.
TEST(MegatronImport, TheOverlappedGradientReduceComesBack) {
  Plan base =
      load_plan(scaleout::testing::source_path("experiments/model-parallel/llama2-70b-h100.yaml"));
  base.parallelism->overlap_grad_reduce = true;
  base.parallelism->bucket_size = 50e6;
  base.parallelism->overlap_param_gather = true;  // the plan's zero: 1
  base.parallelism->tp_comm_overlap = true;
  scaleout::testing::TempDir dir("megatron-overlap");
  Plan plan = load_plan(dir.write("plan.yaml", plan_to_yaml(base)));
  Args args = megatron_arguments(plan);
  EXPECT_NE(std::find(args.begin(), args.end(), "--overlap-grad-reduce"), args.end());
  EXPECT_NE(std::find(args.begin(), args.end(), "--overlap-param-gather"), args.end());
  EXPECT_NE(std::find(args.begin(), args.end(), "--tp-comm-overlap"), args.end());
  auto size = std::find(args.begin(), args.end(), "--ddp-bucket-size");
  ASSERT_NE(size, args.end());
  EXPECT_EQ(*(size + 1), "50000000");
  MegatronImport imported = import_megatron(args, {topology(), plan.training.workers});
  EXPECT_TRUE(imported.left_out.empty());
  Plan again = load_import("megatron-overlap-again", imported);
  EXPECT_TRUE(again.parallelism->overlap_grad_reduce);
  EXPECT_EQ(again.parallelism->bucket_size, 50e6);
  EXPECT_TRUE(again.parallelism->overlap_param_gather);
  EXPECT_TRUE(again.parallelism->tp_comm_overlap);
  EXPECT_EQ(megatron_arguments(again), args);
}

// Context parallelism, Llama 3's way (all-gathered keys and values) and Transformer Engine's ring:
// the degree and the exchange come back; the data degree is the world over tensor x pipeline x
// context (512 / (8 x 4 x 2) = 8 replicas, Llama 2's 1,024 sequences in 128 micro-batches).
TEST(MegatronImport, ContextParallelismComesBack) {
  for (ContextExchange exchange : {ContextExchange::kAllGather, ContextExchange::kRing}) {
    Plan base = load_plan(
        scaleout::testing::source_path("experiments/model-parallel/llama2-70b-h100.yaml"));
    base.parallelism->context = 2;
    base.parallelism->context_exchange = exchange;
    scaleout::testing::TempDir dir("megatron-context");
    Plan plan = load_plan(dir.write("plan.yaml", plan_to_yaml(base)));
    Args args = megatron_arguments(plan);
    auto type = std::find(args.begin(), args.end(), "--cp-comm-type");
    ASSERT_NE(type, args.end());
    EXPECT_EQ(*(type + 1), exchange == ContextExchange::kRing ? "p2p" : "all_gather");
    MegatronImport imported = import_megatron(args, {topology(), plan.training.workers});
    EXPECT_TRUE(imported.left_out.empty());
    Plan again = load_import("megatron-context-again", imported);
    EXPECT_EQ(again.parallelism->context, 2);
    EXPECT_EQ(again.parallelism->context_exchange, exchange);
    EXPECT_EQ(model_split(again).microbatches, 128);
    EXPECT_EQ(megatron_arguments(again), args);
  }
}

// Llama 3 405B's split: 126 layers, the embedding and the loss counted as layers, one a chunk over
// 16 stages x 8: out as Megatron-Core's account-for flags and one layer a virtual stage, back the
// same through import and through the plan writer.
TEST(MegatronImport, TheEmbeddingAndTheLossCountedAsLayersComeBack) {
  Plan plan =
      load_plan(scaleout::testing::source_path("experiments/model-parallel/llama3-405b-h100.yaml"));
  Args args = megatron_arguments(plan);
  for (const char* flag :
       {"--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split"})
    EXPECT_NE(std::find(args.begin(), args.end(), flag), args.end()) << flag;
  auto chunk = std::find(args.begin(), args.end(), "--num-layers-per-virtual-pipeline-stage");
  ASSERT_NE(chunk, args.end());
  EXPECT_EQ(*(chunk + 1), "1");
  MegatronImport imported = import_megatron(args, {topology(), plan.training.workers});
  Plan again = load_import("megatron-counted", imported);
  EXPECT_TRUE(again.parallelism->embedding_in_split);
  EXPECT_TRUE(again.parallelism->loss_in_split);
  EXPECT_EQ(again.parallelism->virtual_stages, 8);
  scaleout::testing::TempDir dir("megatron-counted");
  Plan written = load_plan(dir.write("plan.yaml", plan_to_yaml(again)));
  EXPECT_TRUE(written.parallelism->embedding_in_split && written.parallelism->loss_in_split);
  EXPECT_EQ(stage_layers(model_split(written), 0), 7);
  EXPECT_EQ(stage_layers(model_split(written), 15), 7);
  EXPECT_EQ(stage_layers(model_split(written), 1), 8);
}

// Megatron-LM has no zero-bubble schedule: exporting one would launch 1F1B under the plan's name.
TEST(MegatronImport, TheZeroBubbleScheduleIsNotExported) {
  Plan base =
      load_plan(scaleout::testing::source_path("experiments/model-parallel/llama2-70b-h100.yaml"));
  base.parallelism->schedule = PipelineScheduleKind::kZeroBubble;
  base.parallelism->framework = Framework::kAny;  // Megatron-LM's own refuses it on loading
  base.parallelism->virtual_stages = 1;
  base.parallelism->overlap_grad_reduce = false;
  base.parallelism->bucket_size = 0;
  base.parallelism->tp_comm_overlap = false;
  scaleout::testing::TempDir dir("megatron-zero-bubble");
  Plan plan = load_plan(dir.write("plan.yaml", plan_to_yaml(base)));
  try {
    megatron_arguments(plan);
    ADD_FAILURE() << "exported a zero-bubble plan";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("parallelism.schedule"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("zero-bubble schedule runs in a fork"), std::string::npos)
        << e.what();
  }
}

// Left out, Megatron-LM fills: the FFN (SwiGLU: 2/3 of 4 x 8192 = 21,845.3, down to a multiple
// of 64: 21,824), micro-batch 1, the global batch (micro-batch x data = 1 x 512 / (8 x 4) = 16),
// fp32 gradients for a bf16 run. Flags scaleout does not model are listed with their values.
TEST(MegatronImport, DefaultsAreMegatronsAndTheRestIsListed) {
  Args args = {"--num-layers",
               "80",
               "--hidden-size",
               "8192",
               "--num-attention-heads",
               "64",
               "--swiglu",
               "--seq-length",
               "4096",
               "--vocab-size",
               "32000",
               "--tensor-model-parallel-size=8",
               "--pipeline-model-parallel-size",
               "4",
               "--bf16",
               "--lr",
               "3e-4",
               "--data-path",
               "a",
               "b",
               "--use-mcore-models"};
  MegatronImport imported = import_megatron(args, {topology(), 512});
  Plan plan = load_import("megatron-defaults", imported);
  EXPECT_EQ(plan.workload.transformer->ffn_hidden, 21824);
  EXPECT_EQ(plan.parallelism->microbatch, 1);
  EXPECT_EQ(plan.training.global_batch, 16);
  EXPECT_EQ(plan.parallelism->tensor, 8);
  EXPECT_EQ(plan.training.gradient_precision, "fp32");
  EXPECT_EQ(imported.left_out, (Args{"--lr 3e-4", "--data-path a b", "--use-mcore-models"}));
  EXPECT_NE(imported.yaml.find("ffn_hidden 21824: Megatron-LM's default"), std::string::npos)
      << imported.yaml;
}

std::string refusal(const Args& args, int vocabulary = 0) {
  try {
    import_megatron(args, {topology(), 64, vocabulary});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(MegatronImport, WhatCannotBePlannedIsRefusedNamingTheFlag) {
  Args model = {"--num-layers",          "32", "--hidden-size", "4096",
                "--num-attention-heads", "32", "--seq-length",  "2048"};
  auto with = [&](Args more) {
    Args all = model;
    all.insert(all.end(), more.begin(), more.end());
    return all;
  };
  std::string vocabulary = refusal(model);
  EXPECT_NE(vocabulary.find("--vocab-size"), std::string::npos) << vocabulary;
  EXPECT_EQ(refusal(model, 32000), "");  // scaleout's --vocabulary stands in
  std::string heads = refusal(with({"--vocab-size", "32000", "--tensor-model-parallel-size", "3"}));
  EXPECT_NE(heads.find("--tensor-model-parallel-size"), std::string::npos) << heads;
  EXPECT_NE(heads.find("does not divide the 32 heads"), std::string::npos) << heads;
  std::string context = refusal(
      with({"--vocab-size", "32000", "--context-parallel-size", "2", "--cp-comm-type", "a2a"}));
  EXPECT_NE(context.find("--cp-comm-type"), std::string::npos) << context;
  EXPECT_NE(context.find("'a2a' is not read (all_gather, p2p are)"), std::string::npos) << context;
  std::string value = refusal(with({"--vocab-size", "32000", "--micro-batch-size"}));
  EXPECT_NE(value.find("--micro-batch-size"), std::string::npos) << value;
  EXPECT_NE(value.find("expects a value"), std::string::npos) << value;
  std::string chunk = refusal(with({"--vocab-size", "32000", "--pipeline-model-parallel-size", "4",
                                    "--num-layers-per-virtual-pipeline-stage", "3"}));
  EXPECT_NE(chunk.find("does not divide a stage's 8 layers"), std::string::npos) << chunk;
  std::string bucket = refusal(with({"--vocab-size", "32000", "--ddp-bucket-size", "40000000"}));
  EXPECT_NE(bucket.find("--ddp-bucket-size"), std::string::npos) << bucket;
  EXPECT_NE(bucket.find("--overlap-grad-reduce, which is not given"), std::string::npos) << bucket;
  std::string gather = refusal(with({"--vocab-size", "32000", "--overlap-param-gather"}));
  EXPECT_NE(gather.find("--overlap-param-gather"), std::string::npos) << gather;
  EXPECT_NE(gather.find("needs --overlap-grad-reduce"), std::string::npos) << gather;
  std::string latent = refusal(with({"--vocab-size", "32000", "--kv-lora-rank", "512"}));
  EXPECT_NE(latent.find("--kv-lora-rank"), std::string::npos) << latent;
  EXPECT_NE(latent.find("--multi-latent-attention"), std::string::npos) << latent;
  std::string grouped = refusal(with({"--vocab-size", "32000", "--multi-latent-attention",
                                      "--group-query-attention", "--num-query-groups", "8"}));
  EXPECT_NE(grouped.find("--group-query-attention"), std::string::npos) << grouped;
  std::string freq = refusal(with(
      {"--vocab-size", "32000", "--num-experts", "8", "--moe-layer-freq", "[0,1,1]*10+[0,1]"}));
  EXPECT_NE(freq.find("--moe-layer-freq"), std::string::npos) << freq;
  EXPECT_NE(freq.find("moe.every and moe.first_dense describe"), std::string::npos) << freq;
}

}  // namespace
}  // namespace scaleout::core
