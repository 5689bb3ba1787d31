// The zero-bubble schedule (ZB-H1, Qi et al. 2023) in the engines: the weight passes fill the
// bubble as the paper's count says, SimGrid walks it as the closed form times it, and the options
// it is not modelled with are refused.
#include <gtest/gtest.h>

#include "analytic/analytic.hpp"
#include "core/model/model_parallel_work.hpp"
#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

// testing::two_node_gpt with a vocabulary of 8, so that the output layer does not make the last
// stage the slowest; `free`: links too fast to matter, without latency.
std::string gpt_text(const std::string& parallelism, int workers, const std::string& nic,
                     bool free = false) {
  std::string t = testing::two_node_gpt(parallelism, workers, 16, nic);
  t.replace(t.find("vocabulary: 32000"), 17, "vocabulary: 8");
  std::string links = "bandwidth: 100GB/s, latency: 1us";
  if (free) t.replace(t.find(links), links.size(), "bandwidth: 1e9GB/s, latency: 0us");
  return t;
}

// 4 stages of 2 layers, 16 micro-batches of 1, free links. Per sequence and layer (hidden h =
// 1,024, sequence s = 1,024): forward F = 24 s h^2 + 4 s^2 h; the weights' gradient W = 24 s h^2
// (the attention's s x s products have no weights); the inputs' B = 2F - W. 1F1B's bubble is (p -
// 1)(F + B + W) and ZB-H1's (p - 1)(F + B - W) (Qi et al. 2023, section 3): a ratio of (3F - 2W) /
// 3F = 0.4286 here; a third only where the attention's share vanishes.
TEST(ZeroBubble, TheWeightPassesFillTheBubbleAsThePapersCountSays) {
  auto bubble = [](const std::string& schedule) {
    core::Plan plan = testing::load_text(
        "zb-free", gpt_text("pipeline: 4, schedule: " + schedule, 4, "1e9GB/s", true));
    return predict_analytic(plan).model_parallel->bubble_s;
  };
  double s = 1024, h = 1024;
  double f = 24 * s * h * h + 4 * s * s * h, w = 24 * s * h * h;
  double expected = (3 * f - 2 * w) / (3 * f);
  EXPECT_NEAR(expected, 0.4286, 1e-4);
  EXPECT_NEAR(bubble("zero_bubble") / bubble("1f1b"), expected, 1e-3 * expected);
  // The bubbles themselves: (p - 1) x 2 layers x (F + B -/+ W) at 0.5 of 100 TFLOP/s (4.639 and
  // 10.823 ms); the output layer of 8 words adds less than 0.01 %.
  EXPECT_NEAR(bubble("zero_bubble") / (3 * 2 * (3 * f - 2 * w) / 50e12), 1.0, 1e-4);
  EXPECT_NEAR(bubble("1f1b") / (3 * 2 * 3 * f / 50e12), 1.0, 1e-4);
}

// SimGrid runs the schedule's ops (the weight passes without transfers) as the closed form times
// them, with recomputation in the inputs' pass, ZeRO-1's exchange after it, and uneven stages.
TEST(ZeroBubble, SimGridAgreesWithTheClosedForm) {
  for (const char* parallelism :
       {"tensor: 2, pipeline: 4, schedule: zero_bubble",
        "tensor: 2, pipeline: 4, schedule: zero_bubble, recompute: full, zero: 1",
        "tensor: 2, pipeline: 4, schedule: zero_bubble, first_stage_layers: 1, "
        "last_stage_layers: 1"}) {
    SCOPED_TRACE(parallelism);
    core::Plan plan = testing::load_text("zb-sim", gpt_text(parallelism, 16, "100Gbps"));
    core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
    ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.01);
    EXPECT_EQ(closed.model_parallel->schedule, "zero_bubble");
    // The split changes where compute runs, not how much of it there is.
    core::Plan one_f_one_b = plan;
    one_f_one_b.parallelism->schedule = core::PipelineScheduleKind::kOneFOneB;
    EXPECT_NEAR(closed.phases.compute_s, predict_analytic(one_f_one_b).phases.compute_s,
                1e-9 * closed.phases.compute_s);
    EXPECT_LT(closed.step_time_s, predict_analytic(one_f_one_b).step_time_s);
  }
}

TEST(ZeroBubble, RefusesWhatItIsNotModelledWith) {
  for (const char* extra : {", context: 2", ", zero: 3", ", overlap_grad_reduce: true",
                            ", sequence_parallel: true, tp_comm_overlap: true"}) {
    SCOPED_TRACE(extra);
    testing::expect_refused(
        "zb-refused",
        gpt_text(std::string("tensor: 2, pipeline: 2, schedule: zero_bubble") + extra, 16,
                 "100Gbps"),
        0, "parallelism.schedule");
  }
  testing::expect_refused(
      "zb-virtual",
      gpt_text("pipeline: 2, schedule: zero_bubble, virtual_stages: 2", 16, "100Gbps"), 0,
      "virtual stages need schedule: interleaved");
  testing::expect_refused(
      "zb-deepspeed",
      gpt_text("pipeline: 2, schedule: zero_bubble, framework: deepspeed", 16, "100Gbps"), 0,
      "TrainSchedule");
}

}  // namespace
}  // namespace scaleout::sim
