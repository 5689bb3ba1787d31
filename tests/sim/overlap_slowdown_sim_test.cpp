// Compute slowed by the collectives it overlaps (the device's overlap_slowdown,
// core/model/overlap_slowdown.hpp) in SimGrid and the closed form: ZeRO's per-layer collectives,
// Megatron-Core's tensor chunks and gradient buckets, and the context ring.
#include <gtest/gtest.h>

#include "analytic/analytic.hpp"
#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

std::string slowed(std::string text, const std::string& slowdown) {
  const std::string device = "memory: 80GB }";
  text.replace(text.find(device), device.size(),
               "memory: 80GB, overlap_slowdown: " + slowdown + " }");
  return text;
}

struct Case {
  const char* name;
  const char* parallelism;
};

const Case kOverlapping[] = {
    {"zero3-fsdp", "tensor: 2, zero: 3, framework: fsdp, recompute: full"},
    {"zero2-pipeline", "tensor: 4, pipeline: 2, zero: 2"},
    {"megatron-overlaps",
     "tensor: 2, pipeline: 2, sequence_parallel: true, tp_comm_overlap: true, "
     "overlap_grad_reduce: true, zero: 1"},
    {"context-ring", "tensor: 2, context: 2, pipeline: 2, recompute: full"},
};

// Each overlap slows the step in both engines, by no more than the slowdown of all the compute,
// and the engines still agree within 1 %. With 400 Gb/s NICs the compute outlasts most
// collectives beside it, so the slowdown shows in the step (where the collectives outlast even
// the slowed compute, it hides behind them).
TEST(OverlapSlowdown, EveryOverlapSlowsTheStepAndTheEnginesAgree) {
  for (const Case& c : kOverlapping) {
    SCOPED_TRACE(c.name);
    std::string text = testing::two_node_gpt(c.parallelism, 16, 16, "400Gbps");
    core::Plan plain = testing::load_text(std::string("slow-plain-") + c.name, text);
    core::Plan slow = testing::load_text(std::string("slow-") + c.name, slowed(text, "0.25"));
    core::RunResult closed0 = predict_analytic(plain), closed = predict_analytic(slow);
    core::RunResult sim0 = simulate(plain), sim = simulate(slow);
    ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
    EXPECT_GT(closed.step_time_s, closed0.step_time_s * (1 + 1e-6));
    EXPECT_LT(closed.step_time_s - closed0.step_time_s, 0.25 * closed0.phases.compute_s);
    EXPECT_GT(sim.step_time_s, sim0.step_time_s * (1 + 1e-6));
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.01);
    // The slowdown is the communication's cost: compute alone is what it was.
    EXPECT_NEAR(closed.phases.compute_s, closed0.phases.compute_s, 1e-9 * closed0.phases.compute_s);
    EXPECT_NEAR(sim.phases.compute_s, sim0.phases.compute_s, 1e-6 * sim0.phases.compute_s);
  }
}

// Data parallelism without `parallelism:`: buckets exchanged beside backward (training.overlap,
// bucket_size from the fusion defaults) slow what is left of it, in both engines alike.
TEST(OverlapSlowdown, DataParallelBucketsSlowTheBackwardBesideThem) {
  std::string text = testing::two_node_gpt("tensor: 1", 16, 16, "400Gbps");
  text.replace(text.find("parallelism: { tensor: 1 }\n"), 27, "");
  text.replace(text.find(", global_batch: 16"), 18, ", batch_per_worker: 1, overlap: true");
  core::Plan plain = testing::load_text("slow-dp-plain", text);
  core::Plan slow = testing::load_text("slow-dp", slowed(text, "0.25"));
  core::RunResult closed0 = predict_analytic(plain), closed = predict_analytic(slow);
  core::RunResult sim0 = simulate(plain), sim = simulate(slow);
  EXPECT_GT(closed.step_time_s, closed0.step_time_s * (1 + 1e-6));
  EXPECT_GT(sim.step_time_s, sim0.step_time_s * (1 + 1e-6));
  EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.02);
}

// Without overlap (Megatron-LM's blocking collectives, the data exchange after the pipeline
// drains) nothing runs beside the compute, and the slowdown changes nothing.
TEST(OverlapSlowdown, BlockingCollectivesAreNotSlowed) {
  std::string text = testing::two_node_gpt("tensor: 2, pipeline: 4", 16, 16);
  core::Plan plain = testing::load_text("slow-none-plain", text);
  core::Plan slow = testing::load_text("slow-none", slowed(text, "0.25"));
  EXPECT_DOUBLE_EQ(predict_analytic(slow).step_time_s, predict_analytic(plain).step_time_s);
  EXPECT_DOUBLE_EQ(simulate(slow).step_time_s, simulate(plain).step_time_s);
}

}  // namespace
}  // namespace scaleout::sim
