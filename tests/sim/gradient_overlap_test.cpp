// Megatron-Core's overlap_grad_reduce in both engines: the data group's buckets beside backward,
// counted by hand, and the simulated program against the closed form.
#include <gtest/gtest.h>

#include "analytic/analytic.hpp"
#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

// Tensor x pipeline x data over 16 devices of two nodes (testing::two_node_gpt), 16 sequences a
// step, each node's NIC at `nic`.
std::string overlap_plan(const std::string& parallelism, const std::string& nic = "3200Gbps",
                         const std::string& efficiency = "0.5") {
  return testing::two_node_gpt(parallelism, 16, 16, nic, efficiency);
}

core::RunResult run(const std::string& name, const std::string& parallelism, bool simulated) {
  core::Plan plan = testing::load_text(name, overlap_plan(parallelism));
  return simulated ? simulate(plan) : predict_analytic(plan);
}

// Tensor 8 x data 2: each device keeps 35,481,600 B of gradient (bf16; counted in
// SimulateModelParallel.TheDataExchangeIsARingOfTheGradient), 4,435,200 B a layer. Each rank's
// data peer is on the other node, and the node's 8 data groups share its 3,200 Gb/s NIC: 50 GB/s
// a group. A ring of 2 moves its whole span in 2 steps of 6 us of latency.
// Without overlap: 35,481,600 / 50e9 + 12 us = 721.632 us after the schedule. With a bucket a
// layer (bucket_size: 1), each of 4,435,200 / 50e9 + 12 us = 100.704 us: the last micro-batch's
// backward exchanges each layer's bucket beside the next layer's compute (a layer's backward is
// 2 x 24 b s h^2 (1 + s / 6h) / 8 / 50 TFLOP/s, about 150 us, so each is hidden), and only the
// last layer's bucket is left for after the schedule: 100.704 us.
TEST(GradientOverlap, OnlyTheLastLayersBucketIsExposedWhenTheComputeHidesTheRest) {
  for (bool simulated : {false, true}) {
    SCOPED_TRACE(simulated ? "sim" : "analytic");
    core::RunResult plain = run("overlap-plain", "tensor: 8", simulated);
    core::RunResult overlapped =
        run("overlap-layers", "tensor: 8, overlap_grad_reduce: true, bucket_size: 1", simulated);
    ASSERT_TRUE(plain.model_parallel && overlapped.model_parallel);
    double tolerance = simulated ? 0.01 : 1e-9;
    EXPECT_NEAR(plain.model_parallel->data_comm_s, 721.632e-6, tolerance * 721.632e-6);
    EXPECT_NEAR(overlapped.model_parallel->data_comm_s, 100.704e-6, tolerance * 100.704e-6);
    EXPECT_NEAR(plain.step_time_s - overlapped.step_time_s, 620.928e-6, tolerance * 620.928e-6);
    EXPECT_TRUE(overlapped.model_parallel->overlap_grad_reduce);
  }
}

// Megatron-Core's default bucket, 40M parameters (80 MB in bf16), holds the whole 35 MB gradient:
// one bucket, made by the last layer, so nothing overlaps.
TEST(GradientOverlap, OneBucketOfTheWholeGradientChangesNothing) {
  core::RunResult plain = run("overlap-default-plain", "tensor: 8", false);
  core::RunResult one = run("overlap-default", "tensor: 8, overlap_grad_reduce: true", false);
  EXPECT_NEAR(one.step_time_s, plain.step_time_s, 1e-12);
  EXPECT_NEAR(one.model_parallel->data_comm_s, plain.model_parallel->data_comm_s, 1e-12);
}

TEST(GradientOverlap, TheSimulatedProgramAgreesWithTheClosedForm) {
  const char* cases[] = {
      "tensor: 2, pipeline: 4, overlap_grad_reduce: true, bucket_size: 1",
      "tensor: 2, pipeline: 4, zero: 1, overlap_grad_reduce: true, bucket_size: 1",
      "tensor: 2, pipeline: 4, schedule: interleaved, virtual_stages: 2, overlap_grad_reduce: "
      "true, bucket_size: 1",
      "tensor: 4, pipeline: 2, zero: 1, overlap_grad_reduce: true, bucket_size: 5e6",
      "tensor: 8, zero: 1, overlap_grad_reduce: true, bucket_size: 1",
      "tensor: 2, pipeline: 4, zero: 1, overlap_grad_reduce: true, bucket_size: 1, "
      "overlap_param_gather: true",
      "tensor: 2, pipeline: 4, schedule: interleaved, virtual_stages: 2, zero: 1, "
      "overlap_grad_reduce: true, bucket_size: 1, overlap_param_gather: true",
      "tensor: 2, pipeline: 4, sequence_parallel: true, tp_comm_overlap: true",
      "tensor: 8, sequence_parallel: true, tp_comm_overlap: true, zero: 1, overlap_grad_reduce: "
      "true, bucket_size: 1",
      "tensor: 4, pipeline: 2, schedule: interleaved, virtual_stages: 2, sequence_parallel: true, "
      "tp_comm_overlap: true",
  };
  for (const char* c : cases) {
    SCOPED_TRACE(c);
    core::RunResult sim = run("overlap-agree", c, true), closed = run("overlap-agree", c, false);
    ASSERT_TRUE(sim.model_parallel && closed.model_parallel);
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.01);
    EXPECT_NEAR(sim.model_parallel->data_comm_s, closed.model_parallel->data_comm_s,
                0.05 * closed.model_parallel->data_comm_s + 1e-6);
  }
}

// ZeRO-1 (Megatron-Core's distributed optimizer) reduce-scatters the buckets during backward and
// all-gathers the parameters after the schedule: half of the 721.632 us ring, 360.816 us (one step
// of 6 us and half the gradient), stays exposed beside the last bucket's reduce-scatter of
// 4,435,200 / 2 / 50e9 + 6 us = 50.352 us.
TEST(GradientOverlap, TheDistributedOptimizersGatherFollowsTheSchedule) {
  for (bool simulated : {false, true}) {
    SCOPED_TRACE(simulated ? "sim" : "analytic");
    core::RunResult r =
        run("overlap-zero1", "tensor: 8, zero: 1, overlap_grad_reduce: true, bucket_size: 1",
            simulated);
    double tolerance = simulated ? 0.01 : 1e-9;
    EXPECT_NEAR(r.model_parallel->data_comm_s, 411.168e-6, tolerance * 411.168e-6);
  }
}

// --overlap-param-gather moves that 360.816 us gather into the next iteration's first forward, in
// the same buckets (a layer each): the first layer's, 50.352 us as a layer's reduce-scatter, before
// the first layer, and each next one beside a layer's forward (about 75 us: hidden). Exposed: that
// first bucket and the last gradient bucket, 100.704 us; the step 310.464 us shorter.
TEST(GradientOverlap, TheParameterGatherMovesIntoTheFirstForward) {
  for (bool simulated : {false, true}) {
    SCOPED_TRACE(simulated ? "sim" : "analytic");
    const char* zero1 = "tensor: 8, zero: 1, overlap_grad_reduce: true, bucket_size: 1";
    core::RunResult after = run("param-gather-after", zero1, simulated);
    core::RunResult overlapped = run(
        "param-gather-overlapped", std::string(zero1) + ", overlap_param_gather: true", simulated);
    ASSERT_TRUE(after.model_parallel && overlapped.model_parallel);
    double tolerance = simulated ? 0.01 : 1e-9;
    EXPECT_NEAR(overlapped.model_parallel->data_comm_s, 100.704e-6, tolerance * 100.704e-6);
    EXPECT_NEAR(after.step_time_s - overlapped.step_time_s, 310.464e-6, tolerance * 310.464e-6);
    EXPECT_TRUE(overlapped.model_parallel->overlap_param_gather);
    EXPECT_FALSE(after.model_parallel->overlap_param_gather);
  }
}

// Megatron-Core's --tp-comm-overlap, where the compute hides every chunk but the first. Tensor 8
// inside a node: an all-reduce of a micro-batch's activations (b s h x 2 B = 2,097,152 B) is 14
// ring steps of 262,144 B over 100 GB/s device links with 2 us of latency (two links):
// 14 x 4.62144 us = 64.70016 us. The first of 8 chunks, 262,144 B: 14 steps of 32,768 B,
// 14 x 2.32768 us = 32.58752 us. A layer's 2 forward and 2 backward all-reduces, 8 layers,
// 8 micro-batches: 256 of them a step, 16,563.24096 us whole, 8,342.40512 us of first chunks. At
// efficiency 0.01 a layer's forward computes for milliseconds, hiding the other chunks.
TEST(TensorOverlap, OnlyTheFirstChunkOfEachCollectiveIsExposed) {
  auto tensor_comm = [](const std::string& extra, bool simulated) {
    core::Plan plan = testing::load_text(
        "tp-overlap",
        overlap_plan("tensor: 8, sequence_parallel: true" + extra, "3200Gbps", "0.01"));
    core::RunResult r = simulated ? simulate(plan) : predict_analytic(plan);
    EXPECT_EQ(r.model_parallel->tp_comm_overlap, !extra.empty());
    return r.model_parallel->tensor_comm_s;
  };
  for (bool simulated : {false, true}) {
    SCOPED_TRACE(simulated ? "sim" : "analytic");
    double tolerance = simulated ? 0.01 : 1e-9;
    EXPECT_NEAR(tensor_comm("", simulated), 16563.24096e-6, tolerance * 16563.24096e-6);
    EXPECT_NEAR(tensor_comm(", tp_comm_overlap: true", simulated), 8342.40512e-6,
                tolerance * 8342.40512e-6);
  }
}

}  // namespace
}  // namespace scaleout::sim
