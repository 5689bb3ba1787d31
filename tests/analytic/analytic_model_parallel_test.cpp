// The analytic engine on model-parallel plans, held to closed forms computed here by hand.
#include "analytic/analytic_model_parallel.hpp"

#include <gtest/gtest.h>

#include "analytic/analytic.hpp"
#include "core/input_error.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

// A cluster with no latency (cm02: no corrections), a transformer of `layers` layers with
// hidden 1024, 16 heads, sequence 1024 and a vocabulary of one token (its output layer is then
// free), then `rest`.
std::string plan_text(const std::string& bandwidth, int layers, const std::string& rest) {
  return "cluster:\n"
         "  name: c\n"
         "  devices_per_node: 8\n"
         "  device: { name: X, flops: 100TFLOPS }\n"
         "  intra_node: { bandwidth: " +
         bandwidth +
         ", latency: 0s }\n"
         "  nic: { bandwidth: " +
         bandwidth +
         ", latency: 0s }\n"
         "  network_model: cm02\n"
         "workload:\n"
         "  name: gpt\n"
         "  efficiency: 0.5\n"
         "  transformer: { layers: " +
         std::to_string(layers) + ", hidden: 1024, heads: 16, sequence: 1024, vocabulary: 1 }\n" +
         rest;
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

TEST(AnalyticModelParallel, ZeroThreeMovesHalfAsMuchAgainOverTheDataGroup) {
  auto data_comm = [](int zero) {
    core::Plan p = load("zero" + std::to_string(zero),
                        plan_text("10GB/s", 4,
                                  "parallelism: { tensor: 2, zero: " + std::to_string(zero) +
                                      " }\nstrategy: { kind: ring }\n"
                                      "training: { workers: 16, global_batch: 16 }\n"));
    return predict_analytic(p).model_parallel->data_comm_s;
  };
  double zero0 = data_comm(0);
  EXPECT_GT(zero0, 0);
  EXPECT_NEAR(data_comm(1) / zero0, 1.0, 1e-9);
  EXPECT_NEAR(data_comm(3) / zero0, 1.5, 1e-9);
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
  EXPECT_NE(warnings("overlap", "ring", true).find("training.overlap is not modelled"),
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
