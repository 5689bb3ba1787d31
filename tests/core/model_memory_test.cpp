// The memory a device needs under a model-parallel split, against values computed by hand from
// the ZeRO paper's 16 bytes a parameter and Korthikanti et al.'s activations.
#include "core/model/model_memory.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/model/transformer.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

// A cluster of 8-device nodes with 80 GB devices (line 4), then `workload` and `rest`.
std::string plan_text(const std::string& workload, const std::string& rest) {
  return "cluster:\n"
         "  name: c\n"
         "  devices_per_node: 8\n"
         "  device: { name: A100, flops: 312TFLOPS, memory: 80GB }\n"
         "  intra_node: { bandwidth: 300GB/s, latency: 1us }\n"
         "  nic: { bandwidth: 200Gbps, latency: 2us }\n"
         "workload:\n"
         "  name: gpt\n"
         "  transformer: " +
         workload + "\n" + rest;
}

const std::string k175b =
    "{ layers: 96, hidden: 12288, heads: 96, sequence: 2048, vocabulary: 51200 }";
const std::string k7_5b =
    "{ layers: 36, hidden: 4096, heads: 32, sequence: 2048, vocabulary: 51200 }";

Plan gpt3(const std::string& recompute) {
  return testing::load_text(
      "mem-gpt3-" + recompute,
      plan_text(k175b, "parallelism: { tensor: 8, pipeline: 12, recompute: " + recompute +
                           " }\n"
                           "strategy: { kind: ring }\n"
                           "training: { workers: 768, global_batch: 1536 }\n"));
}

TEST(ModelMemory, Gpt3OnTwelveStagesByHand) {
  // Stage 0: 8 layers of (12h^2 + 13h) / 8, the word embedding / 8 and the position embedding:
  // 1,915,908,096 parameters; 1F1B keeps 12 micro-batches of 8 layers of
  // s b h (10 + 24/8 + 5 a s / (8h)) = 578,813,952 bytes.
  MemoryBreakdown m = worst_stage_memory(gpt3("none"));
  EXPECT_EQ(m.stage, 0);
  EXPECT_DOUBLE_EQ(m.parameters, 3831816192.0);
  EXPECT_DOUBLE_EQ(m.gradients, 3831816192.0);
  EXPECT_DOUBLE_EQ(m.optimizer, 22990897152.0);
  EXPECT_DOUBLE_EQ(m.activations, 55566139392.0);
  EXPECT_DOUBLE_EQ(m.total, 86220668928.0);
  EXPECT_DOUBLE_EQ(m.capacity, 80e9);
  EXPECT_NE(does_not_fit(gpt3("none")).find("stage 0 needs 86.2 GB"), std::string::npos)
      << does_not_fit(gpt3("none"));
  // Selective recomputation keeps s b h (10 + 24/8) a layer: 62.1 GB, which fits.
  MemoryBreakdown selective = worst_stage_memory(gpt3("selective"));
  EXPECT_DOUBLE_EQ(selective.total, 62061477888.0);
  EXPECT_EQ(does_not_fit(gpt3("selective")), "");
}

// FlashAttention never stores the s x s scores: without recomputation a stage keeps what
// selective recomputation keeps, s b h (10 + 24/8) a layer (62.1 GB, as above).
TEST(ModelMemory, FlashAttentionKeepsNoScores) {
  Plan flash = testing::load_text(
      "mem-gpt3-flash",
      plan_text("{ layers: 96, hidden: 12288, heads: 96, sequence: 2048, vocabulary: 51200, "
                "attention: flash }",
                "parallelism: { tensor: 8, pipeline: 12, recompute: none }\n"
                "strategy: { kind: ring }\n"
                "training: { workers: 768, global_batch: 1536 }\n"));
  EXPECT_DOUBLE_EQ(worst_stage_memory(flash).total, 62061477888.0);
}

TEST(ModelMemory, RefusalNamesTheStageAndEachTerm) {
  try {
    check_memory_fits(gpt3("none"));
    ADD_FAILURE() << "a 86 GB stage fitted an 80 GB device";
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(":4:"), std::string::npos) << msg;  // the device's memory line
    for (const char* term : {"parameters 3.8 GB", "gradients 3.8 GB", "optimizer states 23.0 GB",
                             "activations 55.6 GB", "A100 has 80.0 GB"})
      EXPECT_NE(msg.find(term), std::string::npos) << term << " in " << msg;
  }
}

TEST(ModelMemory, SevenBillionWithZeroOneByHand) {
  // Tensor 4, no pipeline, 32 replicas, micro-batch 2: 1,873,235,968 parameters a device; ZeRO-1
  // shards the optimizer's 12 bytes over 32; one micro-batch of 36 layers of
  // s b h (10 + 24/4 + 5 a s / (4h)) in flight.
  Plan p = testing::load_text("mem-gpt-7.5b",
                              plan_text(k7_5b,
                                        "parallelism: { tensor: 4, microbatch: 2, zero: 1 }\n"
                                        "strategy: { kind: ring }\n"
                                        "training: { workers: 128, global_batch: 512 }\n"));
  MemoryBreakdown m = worst_stage_memory(p);
  EXPECT_DOUBLE_EQ(m.parameters, 3746471936.0);
  EXPECT_DOUBLE_EQ(m.gradients, 3746471936.0);
  EXPECT_DOUBLE_EQ(m.optimizer, 702463488.0);
  EXPECT_DOUBLE_EQ(m.activations, 21743271936.0);
  EXPECT_DOUBLE_EQ(m.total, 29938679296.0);
}

// Tensor 4 of 128 workers: a data degree of 32. ZeRO-1 divides the optimizer states by it,
// ZeRO-2 the gradients as well, ZeRO-3 the parameters as well; activations never move.
TEST(ModelMemory, ZeroStagesShardMoreAndMore) {
  std::vector<MemoryBreakdown> by_zero;
  for (int zero = 0; zero <= 3; ++zero) {
    Plan p = testing::load_text(
        "mem-zero" + std::to_string(zero),
        plan_text(k7_5b, "parallelism: { tensor: 4, zero: " + std::to_string(zero) + " }\n" +
                             "strategy: { kind: ring }\ntraining: { workers: 128, "
                             "global_batch: 512 }\n"));
    by_zero.push_back(worst_stage_memory(p));
  }
  const MemoryBreakdown& none = by_zero[0];
  for (int zero = 1; zero <= 3; ++zero) {
    const MemoryBreakdown& m = by_zero[zero];
    SCOPED_TRACE("zero " + std::to_string(zero));
    EXPECT_DOUBLE_EQ(m.optimizer, none.optimizer / 32);
    EXPECT_DOUBLE_EQ(m.gradients, zero >= 2 ? none.gradients / 32 : none.gradients);
    EXPECT_DOUBLE_EQ(m.parameters, zero >= 3 ? none.parameters / 32 : none.parameters);
    EXPECT_DOUBLE_EQ(m.activations, none.activations);
  }
}

TEST(ModelMemory, AWrittenPlanLoadsToTheSameSplit) {
  Plan p = testing::load_text(
      "mem-written", plan_text(k7_5b,
                               "parallelism: { tensor: 4, pipeline: 2, microbatch: 2, zero: 2, "
                               "schedule: interleaved, virtual_stages: 3, recompute: selective, "
                               "sequence_parallel: true }\n"
                               "strategy: { kind: ring }\n"
                               "training: { workers: 64, global_batch: 256 }\n"));
  Plan back = testing::load_text("mem-written-back", plan_to_yaml(p));
  ASSERT_TRUE(back.parallelism && back.workload.transformer);
  EXPECT_EQ(back.parallelism->virtual_stages, 3);
  EXPECT_EQ(back.parallelism->schedule, PipelineScheduleKind::kInterleaved);
  EXPECT_TRUE(back.parallelism->sequence_parallel);
  EXPECT_EQ(back.training.global_batch, 256);
  EXPECT_DOUBLE_EQ(back.cluster.device.memory, 80e9);
  EXPECT_DOUBLE_EQ(worst_stage_memory(back).total, worst_stage_memory(p).total);
  EXPECT_DOUBLE_EQ(back.workload.parameters, p.workload.parameters);
}

TEST(ModelMemory, ALlamaStyleModelKeepsItsOutputLayerAndNoPositions) {
  Plan p = testing::load_text(
      "mem-llama",
      plan_text("{ layers: 4, hidden: 1024, heads: 16, sequence: 2048, vocabulary: 32000, "
                "mlp: swiglu, positions: rotary, tied_embeddings: false }",
                "parallelism: { tensor: 2, pipeline: 2 }\n"
                "strategy: { kind: ring }\n"
                "training: { workers: 8, global_batch: 16 }\n"));
  const TransformerShape& t = *p.workload.transformer;
  ASSERT_EQ(t.mlp, MlpKind::kSwiglu);
  // Two layers a stage and the vocabulary, each over the tensor group of 2.
  double layers = 2 * layer_parameters(t) / 2, words = 32000.0 * 1024 / 2;
  // Stage 0: its layers and the word embedding, no position embedding; the last stage: its layers
  // and the untied output layer.
  EXPECT_DOUBLE_EQ(stage_parameters(p, model_split(p), 0), layers + words);
  EXPECT_DOUBLE_EQ(stage_parameters(p, model_split(p), 1), layers + words);
  EXPECT_DOUBLE_EQ(p.workload.parameters, 4 * layer_parameters(t) + 2 * 32000.0 * 1024);

  Plan back = testing::load_text("mem-llama-back", plan_to_yaml(p));
  ASSERT_TRUE(back.workload.transformer);
  EXPECT_EQ(back.workload.transformer->mlp, MlpKind::kSwiglu);
  EXPECT_EQ(back.workload.transformer->positions, PositionKind::kRotary);
  EXPECT_FALSE(back.workload.transformer->tied_embeddings);
  EXPECT_DOUBLE_EQ(back.workload.parameters, p.workload.parameters);
  EXPECT_DOUBLE_EQ(worst_stage_memory(back).total, worst_stage_memory(p).total);
}

}  // namespace
}  // namespace scaleout::core
