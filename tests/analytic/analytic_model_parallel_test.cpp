// The analytic engine on model-parallel plans, held to closed forms computed here by hand.
#include "analytic/analytic_model_parallel.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "analytic/analytic.hpp"
#include "core/model/model_parallel_work.hpp"
#include "core/plan/input_error.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

// A cluster of 8-device nodes with the links `intra_node` and `nic` (cm02: no corrections), a
// transformer of `layers` layers with hidden 1024, 16 heads, sequence 1024 and a vocabulary of one
// token (its output layer is then free), then `rest`.
std::string plan_text(const std::string& intra_node, const std::string& nic, int layers,
                      const std::string& rest) {
  return "cluster:\n"
         "  name: c\n"
         "  devices_per_node: 8\n"
         "  device: { name: X, flops: 100TFLOPS }\n"
         "  intra_node: " +
         intra_node +
         "\n"
         "  nic: " +
         nic +
         "\n"
         "  network_model: cm02\n"
         "workload:\n"
         "  name: gpt\n"
         "  efficiency: 0.5\n"
         "  transformer: { layers: " +
         std::to_string(layers) + ", hidden: 1024, heads: 16, sequence: 1024, vocabulary: 1 }\n" +
         rest;
}

// The same with no latency and `bandwidth` on every link.
std::string plan_text(const std::string& bandwidth, int layers, const std::string& rest) {
  std::string link = "{ bandwidth: " + bandwidth + ", latency: 0s }";
  return plan_text(link, link, layers, rest);
}

// One layer's forward for one sequence: 24 s h^2 (1 + s / 6h).
constexpr double kLayerForward = 24.0 * 1024 * 1024 * 1024 * (1 + 1024.0 / (6 * 1024));
constexpr double kRate = 100e12 * 0.5;

core::Plan load(const std::string& name, const std::string& text) {
  return testing::load_text("analytic-mp-" + name, text);
}

TEST(AnalyticModelParallel, OneDeviceRunsAtTheModelsEfficiency) {
  core::Plan p = load("one", plan_text("100GB/s", 4,
                                       "parallelism: { microbatch: 2 }\n"
                                       "strategy: { kind: ring }\n"
                                       "training: { workers: 1, global_batch: 8 }\n"));
  core::RunResult r = predict_analytic(p);
  ASSERT_TRUE(r.model_parallel);
  // (the one-token output layer adds 2 s h FLOPs a sequence, 2e-5 of the step)
  EXPECT_NEAR(r.step_time_s, 8 * 3 * 4 * kLayerForward / kRate, 1e-4 * r.step_time_s);
  EXPECT_NEAR(r.model_parallel->mfu, 0.5, 1e-6);
  EXPECT_NEAR(r.model_parallel->tokens_per_s, 8 * 1024 / r.step_time_s, 1e-6);
  EXPECT_NEAR(r.scaling_efficiency, 1.0, 1e-6);
}

TEST(AnalyticModelParallel, FreeNetworkPipelineTakesMPlusPMinusOneSlots) {
  // 4 stages of 2 layers, 16 micro-batches of 1 sequence on one replica.
  for (const char* schedule : {"gpipe", "1f1b"}) {
    core::Plan p =
        load(schedule, plan_text("1e9GB/s", 8,
                                 std::string("parallelism: { pipeline: 4, schedule: ") + schedule +
                                     " }\nstrategy: { kind: ring }\n"
                                     "training: { workers: 4, global_batch: 16 }\n"));
    core::RunResult r = predict_analytic(p);
    double slot = 3 * 2 * kLayerForward / kRate;  // forward + backward of a stage
    EXPECT_NEAR(r.step_time_s / ((16 + 4 - 1) * slot), 1.0, 0.01) << schedule;
    EXPECT_NEAR(r.model_parallel->bubble_s / (3 * slot), 1.0, 0.01) << schedule;
  }
}

TEST(AnalyticModelParallel, TensorAllReducesMoveWhatMegatronSends) {
  // 8-way tensor group in one node, no latency: an all-reduce of S bytes takes 2 (7/8) S / B;
  // 4 per layer and micro-batch (2 forward, 2 backward) of S = b s h x 2 bytes.
  core::Plan p = load("tp", plan_text("100GB/s", 4,
                                      "parallelism: { tensor: 8, microbatch: 2 }\n"
                                      "strategy: { kind: ring }\n"
                                      "training: { workers: 8, global_batch: 8 }\n"));
  core::RunResult r = predict_analytic(p);
  double bytes = 2.0 * 1024 * 1024 * 2, allreduce = 2 * 7.0 / 8 * bytes / 100e9;
  double expected = 4 /*micro-batches*/ * 4 /*layers*/ * 4 * allreduce;
  EXPECT_NEAR(r.model_parallel->tensor_comm_s / expected, 1.0, 0.01);
  // Full recomputation runs the forward's two all-reduces again.
  core::Plan full = load("tp-full", plan_text("100GB/s", 4,
                                              "parallelism: { tensor: 8, microbatch: 2, "
                                              "recompute: full }\nstrategy: { kind: ring }\n"
                                              "training: { workers: 8, global_batch: 8 }\n"));
  EXPECT_NEAR(predict_analytic(full).model_parallel->tensor_comm_s / expected, 1.5, 0.01);
}

// A pipeline hop carries one micro-batch's activations, b s h x 2 bytes (bf16) = 1 x 1024 x 1024 x
// 2 = 2,097,152, each rank of a stage's tensor group its 1/t share. Tensor 2 x pipeline 4 x data 2
// on 16 devices: a stage is 4 consecutive ranks, so stages 0-1 fill node 0 and stages 2-3 node 1.
//   inside a node (boundaries 0 and 2): 1 us + 2,097,152 / 2 / 100 GB/s = 11.48576 us;
//   between nodes (boundary 1, and 3, the wrap back to stage 0): the node's 4 ranks of the stage
//   send their halves at once through its NIC, 5 us + 2,097,152 x 4 / 2 / 10 GB/s = 424.4304 us.
// pipeline_comm_s: each of 8 micro-batches sends forward and back over the 3 boundaries of the
// chain, averaged over the 4 stages: 2 x 8 x (2 x 11.48576 + 424.4304) us / 4 = 1789.60768 us.
TEST(AnalyticModelParallel, PipelineHopsMoveOneMicroBatchsActivationsOverTheirLink) {
  core::Plan p = load("pp-hops", plan_text("{ bandwidth: 100GB/s, latency: 1us }",
                                           "{ bandwidth: 10GB/s, latency: 5us }", 8,
                                           "parallelism: { tensor: 2, pipeline: 4 }\n"
                                           "strategy: { kind: ring }\n"
                                           "training: { workers: 16, global_batch: 16 }\n"));
  const double inside = 11.48576e-6, across = 424.4304e-6;
  std::vector<double> hops = model_parallel_costs(p, core::ParallelState::of(p)).transfer;
  ASSERT_EQ(hops.size(), 4u);
  const double expected[] = {inside, across, inside, across};
  for (int b = 0; b < 4; ++b) EXPECT_NEAR(hops[b], expected[b], 1e-9 * expected[b]) << b;
  core::RunResult r = predict_analytic(p);
  EXPECT_NEAR(r.model_parallel->pipeline_comm_s, 1789.60768e-6, 1e-9 * 1789.60768e-6);
}

// Data parallelism alone inside one node: the gradient of P = 4 (12 h^2 + 13 h) + V h + s h =
// 4 x 12,596,224 + 1,024 + 1,048,576 = 51,434,496 parameters (h 1024, V 1, s 1024), 2 bytes each
// (bf16) = 102,868,992 bytes, all-reduced in a ring of 8 over 100 GB/s links without latency:
// 2 (d-1)/d x 2P / B = 2 x 7/8 x 102,868,992 / 100e9 = 1.80020736 ms; its bus bandwidth is then
// the link's.
TEST(AnalyticModelParallel, TheDataGroupAllReducesTheGradientInARing) {
  core::Plan p = load("dp-ring", plan_text("100GB/s", 4,
                                           "parallelism: { tensor: 1 }\n"
                                           "strategy: { kind: ring }\n"
                                           "training: { workers: 8, global_batch: 8, "
                                           "gradient_precision: bf16 }\n"));
  core::RunResult r = predict_analytic(p);
  ASSERT_TRUE(r.model_parallel);
  EXPECT_EQ(r.model_parallel->data, 8);
  EXPECT_DOUBLE_EQ(r.bytes, 102868992.0);
  EXPECT_NEAR(r.model_parallel->data_comm_s, 1.80020736e-3, 1e-9 * 1.80020736e-3);
  EXPECT_NEAR(r.busbw_Bps, 100e9, 1e-6 * 100e9);
}

// Tensor 2 x data 8 on two nodes: each device keeps P = 4 (12 h^2 + 13 h) / 2 + V h / 2 + s h =
// 25,192,448 + 512 + 1,048,576 = 26,241,536 parameters (the position embedding is not split), 4
// bytes each (fp32) = 104,966,144 bytes. The data group's ranks sit 2 apart, 4 to a node; the
// node's two data groups share its 10 GB/s NIC, so the ring's step between nodes runs at 5 GB/s
// and sets its pace: 2 x 7/8 x 104,966,144 / 5e9 = 36.7381504 ms, after the pipeline drains.
// ZeRO-1 moves the same.
//
// ZeRO-2 and 3 move a layer, 26,241,536 B, at a time each micro-batch (2 of them: 16 sequences
// over 8 replicas); a ring's gather or reduce-scatter of it: 7/8 x 26,241,536 / 5e9 = g =
// 4.5922688 ms. A layer's forward is 24 s h^2 (1 + s/6h) / 2 = 15,032,385,536 FLOPs at 50 TFLOP/s,
// c = 0.30064771072 ms, its backward 2c: less than g, so the network sets the pace. An op of L = 4
// layers takes g + r + L t + max(c, g) + (L - 2) max(c, g + r) + max(c, r):
// - ZeRO-3 forward (g, no r): L g + L t + c, exposing L g - (L - 1) c = 17.46713206784 ms;
//   backward (g and r): L (g + r) + L t, exposing 2 L g - 2 L c = 34.33296871424 ms; nothing at
//   the end: 2 x 51.80010078208 = 103.60020156416 ms.
// - ZeRO-2 backward (r only): L r + L t + 2c, exposing L g - 3 x 2c = 16.56518893568 ms a
//   micro-batch, and the parameters' all-gather at the end, 7/8 x 104,966,144 / 5e9 = 18.3690752
//   ms: 2 x 16.56518893568 + 18.3690752 = 51.49945307136 ms.
TEST(AnalyticModelParallel, ZeroTwoAndThreeExchangeALayerAtATimeEachMicroBatch) {
  auto data_comm = [](int zero) {
    core::Plan p = load("zero" + std::to_string(zero),
                        plan_text("10GB/s", 4,
                                  "parallelism: { tensor: 2, zero: " + std::to_string(zero) +
                                      " }\nstrategy: { kind: ring }\n"
                                      "training: { workers: 16, global_batch: 16 }\n"));
    return predict_analytic(p).model_parallel->data_comm_s;
  };
  double zero0 = data_comm(0);
  EXPECT_NEAR(zero0, 36.7381504e-3, 1e-9 * 36.7381504e-3);
  EXPECT_NEAR(data_comm(1) / zero0, 1.0, 1e-9);
  EXPECT_NEAR(data_comm(2), 51.49945307136e-3, 1e-9 * 51.49945307136e-3);
  EXPECT_NEAR(data_comm(3), 103.60020156416e-3, 1e-9 * 103.60020156416e-3);
}

// The formula above on its own: an op of three layers, compute 2, tensor 0.5, gather 1, reduce 3:
// 1 + 3 + 1.5 + max(2, 1) + max(2, 4) + max(2, 3) = 14.5; one layer: 1 + 3 + 0.5 + 2 = 6.5.
// With compute slowed by 1/4 beside collectives: the first layer's 2 beside a gather of 1 runs
// 1 at 4/5 speed, 2.2 in all; beside 4 and beside 3 it runs slowed throughout, 2.5, hidden by the
// collectives: 1 + 3 + 1.5 + 2.2 + 4 + 3 = 14.7. One layer has nothing beside it.
TEST(AnalyticModelParallel, ShardedLayersOverlapTheNextGatherAndThePreviousReduce) {
  EXPECT_DOUBLE_EQ(core::sharded_layers_seconds(3, 2, 0.5, 1, 3, 0), 14.5);
  EXPECT_DOUBLE_EQ(core::sharded_layers_seconds(1, 2, 0.5, 1, 3, 0), 6.5);
  EXPECT_DOUBLE_EQ(core::sharded_layers_seconds(0, 2, 0.5, 1, 3, 0), 0);
  EXPECT_NEAR(core::sharded_layers_seconds(3, 2, 0.5, 1, 3, 0.25), 14.7, 1e-12);
  EXPECT_DOUBLE_EQ(core::sharded_layers_seconds(1, 2, 0.5, 1, 3, 0.25), 6.5);
}

// DeepSpeed's pipeline engine sends a stage's output whole from each rank of a tensor group (no
// scatter-gather) and waits for each send: on links without latency its transfers carry t = 2
// times Megatron-LM's bytes, the step grows, and the time a stage waits on its sends is not
// counted as compute (the busiest stages differ by the one-token output layer: 1e-4).
TEST(AnalyticModelParallel, DeepSpeedSendsWholeActivationsAndWaitsForThem) {
  auto predict = [](const std::string& framework) {
    core::Plan p = load("ds-" + framework,
                        plan_text("10GB/s", 8,
                                  "parallelism: { tensor: 2, pipeline: 4, framework: " + framework +
                                      " }\nstrategy: { kind: ring }\n"
                                      "training: { workers: 16, global_batch: 32 }\n"));
    return predict_analytic(p);
  };
  core::RunResult megatron = predict("megatron"), deepspeed = predict("deepspeed");
  EXPECT_NEAR(deepspeed.model_parallel->pipeline_comm_s / megatron.model_parallel->pipeline_comm_s,
              2.0, 1e-12);
  EXPECT_GT(deepspeed.step_time_s - megatron.step_time_s, 0);
  EXPECT_NEAR(deepspeed.phases.compute_s, megatron.phases.compute_s,
              1e-4 * megatron.phases.compute_s);
}

TEST(AnalyticModelParallel, SaysWhatItDoesNotModel) {
  auto warnings = [](const std::string& name, const std::string& strategy, bool overlap) {
    core::Plan p =
        load(name, plan_text("100GB/s", 4,
                             "parallelism: { tensor: 2 }\nstrategy: { kind: " + strategy +
                                 " }\ntraining: { workers: 8, "
                                 "global_batch: 8, overlap: " +
                                 (overlap ? "true" : "false") + " }\n"));
    std::string all;
    for (const auto& w : predict_analytic(p).warnings) all += w + "\n";
    return all;
  };
  EXPECT_EQ(warnings("plain", "ring", false).find("not modelled"), std::string::npos);
  EXPECT_NE(warnings("overlap", "ring", true)
                .find("training.overlap is not read by model-parallel plans"),
            std::string::npos);
  EXPECT_NE(warnings("ps", "ps", false).find("parameter servers are modelled as"),
            std::string::npos);
}

TEST(AnalyticModelParallel, RefusesAPlanThatDoesNotFit) {
  core::Plan p = load("big",
                      "cluster:\n  name: c\n  devices_per_node: 8\n"
                      "  device: { name: X, flops: 100TFLOPS, memory: 16GB }\n"
                      "  intra_node: { bandwidth: 100GB/s, latency: 1us }\n"
                      "  nic: { bandwidth: 100Gbps, latency: 1us }\n"
                      "workload:\n  name: gpt\n"
                      "  transformer: { layers: 24, hidden: 4096, heads: 32, "
                      "sequence: 2048, vocabulary: 51200 }\n"
                      "parallelism: { tensor: 1 }\nstrategy: { kind: ring }\n"
                      "training: { workers: 8, global_batch: 8 }\n");
  EXPECT_THROW(predict_analytic(p), core::InputError);
}

}  // namespace
}  // namespace scaleout::sim
