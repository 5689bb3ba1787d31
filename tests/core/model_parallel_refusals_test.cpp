// Model-parallel plans that cannot run as written: each refused with its file, line and field.
#include <gtest/gtest.h>

#include <string>

#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

using testing::expect_refused;
using testing::Refusal;

// Lines 1-7: 2 nodes of 8 devices; 8-10: a transformer workload; the plan's own from line 11.
std::string plan(const std::string& rest, const std::string& workload_extra = "") {
  return std::string(testing::kInlineCluster) +
         "workload:\n"
         "  name: gpt\n"
         "  transformer: { layers: 24, hidden: 1024, heads: 16, sequence: 1024, "
         "vocabulary: 50000" +
         workload_extra + " }\n" + rest;
}

const std::string kRing = "strategy: { kind: ring }\n";  // line 11 when first

class MpRefused : public ::testing::TestWithParam<Refusal> {};

TEST_P(MpRefused, NamesFileLineAndWhy) {
  const Refusal& r = GetParam();
  expect_refused(std::string("mp-") + r.name, r.yaml, r.line, r.expect);
}

INSTANTIATE_TEST_SUITE_P(
    ModelParallel, MpRefused,
    ::testing::Values(
        Refusal{"tensor_not_dividing_heads",
                plan(kRing + "parallelism:\n  tensor: 3\ntraining: { workers: 6 }\n"), 13,
                "does not divide the model's 16 heads"},
        Refusal{
            "tensor_not_dividing_kv_heads",
            plan(kRing + "parallelism:\n  tensor: 8\ntraining: { workers: 8 }\n", ", kv_heads: 4"),
            13, "4 key-value heads"},
        Refusal{"zero_out_of_range",
                plan(kRing + "parallelism:\n  zero: 4\ntraining: { workers: 8 }\n"), 13, "zero"},
        Refusal{"layers_not_splitting",
                plan(kRing + "parallelism:\n  pipeline: 5\ntraining: { workers: 5 }\n"), 13,
                "24 layers do not split evenly into 5 stages"},
        Refusal{"moe_one_expert",
                plan(kRing + "training: { workers: 2 }\n", ", moe: { experts: 1 }"), 10,
                "workload.transformer.moe.experts"},
        Refusal{"moe_top_k_above_experts",
                plan(kRing + "training: { workers: 2 }\n", ", moe: { experts: 4, top_k: 5 }"), 10,
                "workload.transformer.moe.top_k"},
        Refusal{"moe_shared_width_without_shared_experts",
                plan(kRing + "training: { workers: 2 }\n",
                     ", moe: { experts: 4, shared_ffn_hidden: 512 }"),
                10, "applies only with shared_experts"},
        Refusal{"megatron_moe_tensor_without_sequence_parallel",
                plan(kRing + "parallelism:\n  framework: megatron\n  tensor: 2\n"
                             "training: { workers: 8 }\n",
                     ", moe: { experts: 8, top_k: 2 }"),
                13, "only with sequence parallelism"},
        Refusal{"expert_without_experts",
                plan(kRing + "parallelism:\n  expert: 2\ntraining: { workers: 8 }\n"), 13,
                "needs a mixture of experts"},
        Refusal{"expert_not_dividing_experts",
                plan(kRing + "parallelism:\n  expert: 4\ntraining: { workers: 8 }\n",
                     ", moe: { experts: 6 }"),
                13, "does not divide the 6 experts"},
        Refusal{"expert_not_dividing_data",
                plan(kRing + "parallelism:\n  expert: 4\ntraining: { workers: 6 }\n",
                     ", moe: { experts: 8 }"),
                13, "does not divide the data-parallel degree 6"},
        Refusal{"expert_over_tensor_without_sequence_parallel",
                plan(kRing + "parallelism:\n  expert: 2\n  tensor: 2\ntraining: { workers: 8 }\n",
                     ", moe: { experts: 8 }"),
                13, "write sequence_parallel: true"},
        Refusal{"hierarchical_alltoall_without_experts",
                plan(kRing + "parallelism:\n  expert_alltoall: hierarchical\n"
                             "training: { workers: 8 }\n",
                     ", moe: { experts: 8 }"),
                13, "give parallelism.expert > 1"},
        // Groups of 3 consecutive ranks in nodes of 8: ranks 6, 7 and 8 straddle two nodes.
        Refusal{"hierarchical_alltoall_straddling_nodes",
                plan(kRing + "parallelism:\n  expert: 3\n  expert_alltoall: hierarchical\n"
                             "training: { workers: 12 }\n",
                     ", moe: { experts: 6 }"),
                14, "the group of ranks 6 to 8 does not with 8 devices a node"},
        Refusal{"unknown_expert_alltoall",
                plan(kRing + "parallelism:\n  expert: 2\n  expert_alltoall: ring\n"
                             "training: { workers: 8 }\n",
                     ", moe: { experts: 8 }"),
                14, "expert_alltoall"},
        Refusal{"uneven_stages_without_pipeline",
                plan(kRing + "parallelism:\n  first_stage_layers: 3\ntraining: { workers: 8 }\n"),
                13, "uneven stages need pipeline 2 or more"},
        // 24 layers less 5 and 5 leave 14 for the 3 stages between.
        Refusal{"uneven_stages_not_splitting",
                plan(kRing + "parallelism:\n  pipeline: 5\n  first_stage_layers: 5\n"
                             "  last_stage_layers: 5\ntraining: { workers: 5 }\n"),
                15, "leave 14, which do not split evenly into the 3 stages between"},
        Refusal{"uneven_stages_with_virtual_stages",
                plan(kRing + "parallelism:\n  pipeline: 2\n  schedule: interleaved\n"
                             "  virtual_stages: 2\n  first_stage_layers: 5\n"
                             "training: { workers: 2 }\n"),
                16, "must be multiples of 2"},
        // 24 layers and the 2 counted as layers are 26, over 4 x 2 chunks.
        Refusal{"counted_embedding_and_loss_not_splitting",
                plan(kRing + "parallelism:\n  pipeline: 4\n  schedule: interleaved\n"
                             "  virtual_stages: 2\n  account_for_embedding_in_pipeline_split: "
                             "true\n  account_for_loss_in_pipeline_split: true\n"
                             "training: { workers: 4 }\n"),
                17, "(26) do not split evenly into 4 stages x 2 virtual stages"},
        Refusal{"counted_embedding_with_uneven_stages",
                plan(kRing + "parallelism:\n  pipeline: 2\n  first_stage_layers: 11\n"
                             "  account_for_embedding_in_pipeline_split: true\n"
                             "training: { workers: 2 }\n"),
                15, "not both"},
        Refusal{"counted_loss_without_pipeline",
                plan(kRing + "parallelism:\n  account_for_loss_in_pipeline_split: true\n"
                             "training: { workers: 2 }\n"),
                13, "needs pipeline 2 or more"},
        Refusal{"virtual_without_interleaved",
                plan(kRing + "parallelism:\n  pipeline: 2\n  virtual_stages: 2\n"
                             "training: { workers: 2 }\n"),
                14, "need schedule: interleaved"},
        Refusal{"workers_not_dividing",
                plan(kRing + "parallelism: { tensor: 2, pipeline: 2 }\n"
                             "training: { workers: 6, global_batch: 12 }\n"),
                13, "6 workers do not divide"},
        Refusal{"global_batch_not_dividing",
                plan(kRing + "parallelism: { tensor: 2, microbatch: 2 }\n"
                             "training: { workers: 8, global_batch: 12 }\n"),
                13, "12 sequences do not divide into 4 data-parallel replicas"},
        Refusal{"interleaved_microbatches",
                plan(kRing + "parallelism:\n  pipeline: 4\n  schedule: interleaved\n"
                             "  virtual_stages: 2\ntraining: { workers: 8, global_batch: 12 }\n"),
                14, "multiples of the pipeline stages (4)"},
        // A written split its framework does not run, refused at the field at fault.
        Refusal{"megatron_zero2",
                plan(kRing + "parallelism:\n  framework: megatron\n  zero: 2\n"
                             "training: { workers: 8 }\n"),
                14, "Megatron-LM shards the optimizer states only"},
        Refusal{"megatron_gpipe",
                plan(kRing + "parallelism:\n  framework: megatron\n  pipeline: 2\n"
                             "  schedule: gpipe\ntraining: { workers: 8 }\n"),
                15, "not GPipe's"},
        Refusal{"deepspeed_zero3_with_stages",
                plan(kRing + "parallelism:\n  framework: deepspeed\n  pipeline: 2\n  zero: 3\n"
                             "training: { workers: 8 }\n"),
                15, "DeepSpeed's pipeline engine refuses ZeRO-2 and ZeRO-3"},
        Refusal{"fsdp_stages",
                plan(kRing + "parallelism:\n  framework: fsdp\n  pipeline: 2\n"
                             "training: { workers: 8 }\n"),
                14, "FSDP shards over data-parallel ranks and has no pipeline stages"},
        Refusal{"fsdp_zero1",
                plan(kRing + "parallelism:\n  framework: fsdp\n  zero: 1\n"
                             "training: { workers: 8 }\n"),
                14, "no ZeRO-1"},
        Refusal{"unknown_framework",
                plan(kRing + "parallelism:\n  framework: colossal\n"
                             "training: { workers: 8 }\n"),
                13, "megatron | deepspeed | fsdp | any"},
        Refusal{"zero3_with_ps",
                plan("strategy: { kind: ps }\nparallelism:\n  zero: 3\n"
                     "training: { workers: 4 }\n"),
                13, "ZeRO-3"},
        Refusal{"zero2_with_ps",
                plan("strategy: { kind: ps }\nparallelism:\n  zero: 2\n"
                     "training: { workers: 4 }\n"),
                13, "reduce-scatter each micro-batch's gradients"},
        Refusal{"bucket_size_without_overlap",
                plan(kRing + "parallelism:\n  tensor: 2\n  bucket_size: 1e6\n"
                             "training: { workers: 8 }\n"),
                14, "write overlap_grad_reduce: true"},
        Refusal{"param_gather_without_distributed_optimizer",
                plan(kRing + "parallelism:\n  overlap_grad_reduce: true\n"
                             "  overlap_param_gather: true\ntraining: { workers: 8 }\n"),
                14, "write zero: 1"},
        Refusal{"param_gather_without_grad_reduce",
                plan(kRing + "parallelism:\n  zero: 1\n  overlap_param_gather: true\n"
                             "training: { workers: 8 }\n"),
                14, "parallelism.overlap_param_gather"},
        Refusal{"overlap_with_zero3",
                plan(kRing + "parallelism:\n  zero: 3\n  overlap_grad_reduce: true\n"
                             "training: { workers: 8 }\n"),
                14, "parallelism.overlap_grad_reduce"},
        Refusal{"overlap_with_deepspeed",
                plan(kRing + "parallelism:\n  framework: deepspeed\n  overlap_grad_reduce: true\n"
                             "training: { workers: 8 }\n"),
                14, "Megatron-Core's option; DeepSpeed"},
        Refusal{"tp_overlap_without_sequence_parallel",
                plan(kRing + "parallelism:\n  tensor: 2\n  tp_comm_overlap: true\n"
                             "training: { workers: 8 }\n"),
                14, "write sequence_parallel: true"},
        Refusal{"tp_overlap_without_tensor",
                plan(kRing + "parallelism:\n  sequence_parallel: true\n  tp_comm_overlap: true\n"
                             "training: { workers: 8 }\n"),
                14, "give tensor 2 or more"},
        Refusal{"overlap_with_ps",
                plan("strategy: { kind: ps }\nparallelism:\n  overlap_grad_reduce: true\n"
                     "training: { workers: 4 }\n"),
                13, "not a parameter server"},
        // Context parallelism: the sequence in 2 x context chunks; Megatron-Core's alone.
        Refusal{"context_not_splitting_the_sequence",
                plan(kRing + "parallelism:\n  tensor: 2\n  context: 3\n"
                             "training: { workers: 6 }\n"),
                14, "does not split into 2 x 3 chunks"},
        Refusal{"context_with_experts",
                plan(kRing + "parallelism: { context: 2, expert: 2 }\ntraining: { workers: 4 }\n",
                     ", moe: { experts: 8, top_k: 2 }"),
                12, "context and expert parallelism together"},
        Refusal{"context_with_deepspeed",
                plan(kRing + "parallelism:\n  framework: deepspeed\n  context: 2\n"
                             "training: { workers: 8 }\n"),
                14, "DeepSpeed splits sequences with DeepSpeed-Ulysses' all-to-alls"},
        Refusal{"context_with_ps",
                plan("strategy: { kind: ps }\nparallelism:\n  context: 2\n"
                     "training: { workers: 4 }\n"),
                13, "not a parameter server"},
        Refusal{"context_not_dividing_the_workers",
                plan(kRing + "parallelism: { tensor: 2, context: 4 }\n"
                             "training: { workers: 12, global_batch: 12 }\n"),
                13, "x context 4"},
        Refusal{"zero2_with_experts",
                plan(kRing + "parallelism: { expert: 2, zero: 2 }\ntraining: { workers: 4 }\n",
                     ", moe: { experts: 8, top_k: 2 }"),
                12, "ZeRO-2 and ZeRO-3 with expert parallelism"},
        Refusal{"async_ps",
                plan("strategy: { kind: ps, mode: async }\nparallelism: { tensor: 2 }\n"
                     "training: { workers: 4 }\n"),
                11, "asynchronous"},
        Refusal{"parameters_disagree",
                std::string(testing::kInlineCluster) +
                    "workload:\n  name: gpt\n"
                    "  transformer: { layers: 24, hidden: 1024, heads: 16, sequence: 1024, "
                    "vocabulary: 50000 }\n  parameters: 350M\n" +
                    kRing + "training: { workers: 8 }\n",
                11, "the transformer's dimensions give"},
        Refusal{"parallelism_without_transformer",
                std::string(testing::kInlineCluster) + testing::kInlineWorkload + kRing +
                    "parallelism: { tensor: 2 }\ntraining: { workers: 8 }\n",
                10, "needs a transformer workload"},
        Refusal{"global_batch_without_parallelism",
                plan(kRing + "training: { workers: 8, global_batch: 64 }\n"), 12,
                "applies to model-parallel plans"},
        Refusal{"stragglers",
                plan(kRing + "parallelism: { tensor: 2 }\ntraining: { workers: 8 }\n"
                             "stragglers: { slow: { workers: [1], factor: 2 } }\n"),
                14, "not modelled for model-parallel plans"},
        Refusal{"failures",
                plan(kRing + "parallelism: { tensor: 2 }\ntraining: { workers: 8 }\n"
                             "failures: [{ node: 0, step: 1 }]\n"),
                14, "not modelled for model-parallel plans"},
        Refusal{"checkpoint_without_rates",
                plan(kRing + "parallelism: { tensor: 2 }\ntraining: { workers: 8 }\n"
                             "checkpoint: { every: 10, cost: 1s }\n"),
                14, "add reliability:"},
        Refusal{"heterogeneity",
                std::string(testing::kInlineCluster) + "  speed_factors: { node1: 0.5 }\n" +
                    "workload:\n  name: gpt\n"
                    "  transformer: { layers: 24, hidden: 1024, heads: 16, sequence: 1024, "
                    "vocabulary: 50000 }\n" +
                    kRing + "parallelism: { tensor: 2 }\ntraining: { workers: 8 }\n",
                2, "heterogeneous devices and links are not modelled"},
        Refusal{"unknown_mlp", plan(kRing + "training: { workers: 8 }\n", ", mlp: relu"), 10,
                "'relu' is not one of: gelu | swiglu"},
        Refusal{"unknown_positions",
                plan(kRing + "training: { workers: 8 }\n", ", positions: sinusoidal"), 10,
                "'sinusoidal' is not one of: learned | rotary | alibi"},
        Refusal{"unknown_parallelism_key",
                plan(kRing + "parallelism: { tensor: 2, pipelines: 2 }\n"
                             "training: { workers: 8 }\n"),
                12, "pipelines"}));

}  // namespace
}  // namespace scaleout::core
