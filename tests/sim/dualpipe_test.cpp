// DeepSeek's DualPipeV and DualPipe (deepseek-ai/DualPipe) in the engines: the schedules' ops,
// their bubbles as the authors' table counts them, SimGrid walking them as the closed form times
// them, DualPipe's mirrored stages, and the options they are not modelled with refused.
#include <gtest/gtest.h>

#include <algorithm>

#include "analytic/analytic.hpp"
#include "analytic/pipeline_timing.hpp"
#include "core/model/model_memory.hpp"
#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

using core::PipelineScheduleKind;
using core::PipeOp;
using Kind = PipeOp::Kind;

// Every stage runs each micro-batch's forward and backward through both of its chunks once; a
// backward whose weights' gradient runs apart is followed, later, by that weight pass.
TEST(DualPipeV, EveryStageRunsEachMicrobatchThroughBothChunks) {
  for (int stages : {2, 3, 4, 8})
    for (int microbatches : {2 * stages, 2 * stages + 3, 20})
      for (int s = 0; s < stages; ++s) {
        SCOPED_TRACE(::testing::Message()
                     << stages << " stages, " << microbatches << ", stage " << s);
        auto ops =
            core::stage_schedule(PipelineScheduleKind::kDualPipeV, s, stages, microbatches, 2);
        for (int chunk = 0; chunk < 2; ++chunk)
          for (int m = 0; m < microbatches; ++m) {
            auto is = [&](Kind kind) {
              return [&, kind](const PipeOp& op) {
                return op.kind == kind && op.microbatch == m && op.chunk == chunk;
              };
            };
            auto forward = std::find_if(ops.begin(), ops.end(), is(Kind::kForward));
            auto backward = std::find_if(ops.begin(), ops.end(), is(Kind::kBackward));
            ASSERT_EQ(std::count_if(ops.begin(), ops.end(), is(Kind::kForward)), 1);
            ASSERT_EQ(std::count_if(ops.begin(), ops.end(), is(Kind::kBackward)), 1);
            EXPECT_LT(forward, backward);
            auto weights = std::count_if(ops.begin(), ops.end(), is(Kind::kWeight));
            EXPECT_EQ(weights, backward->weight_apart ? 1 : 0);
            if (weights)
              EXPECT_LT(backward, std::find_if(ops.begin(), ops.end(), is(Kind::kWeight)));
          }
      }
  EXPECT_NE(core::check_schedule(PipelineScheduleKind::kDualPipeV, 4, 7, 2), "");
  EXPECT_NE(core::check_schedule(PipelineScheduleKind::kDualPipeV, 4, 8, 1), "");
  EXPECT_EQ(core::check_schedule(PipelineScheduleKind::kDualPipeV, 4, 8, 2), "");
}

// The V: chunk 0 of stage s is the model's position s, chunk 1 position 2p - 1 - s; the last
// stage turns a micro-batch from its chunk 0 to its chunk 1, and the first holds the output layer.
TEST(DualPipeV, TheRouteGoesDownTheStagesAndBackUp) {
  core::PipeRoute v(PipelineScheduleKind::kDualPipeV, 4, 2);
  EXPECT_EQ(v.position(0, 0), 0);
  EXPECT_EQ(v.position(3, 0), 3);
  EXPECT_EQ(v.position(3, 1), 4);
  EXPECT_EQ(v.position(0, 1), 7);
  core::StageChunk to;
  ASSERT_TRUE(v.output_to(Kind::kForward, 3, 0, to));
  EXPECT_EQ(to, (core::StageChunk{3, 1}));
  ASSERT_TRUE(v.output_to(Kind::kForward, 2, 1, to));
  EXPECT_EQ(to, (core::StageChunk{1, 1}));
  ASSERT_TRUE(v.output_to(Kind::kBackward, 1, 1, to));
  EXPECT_EQ(to, (core::StageChunk{2, 1}));
  EXPECT_FALSE(v.output_to(Kind::kForward, 0, 1, to));   // the output layer
  EXPECT_FALSE(v.output_to(Kind::kBackward, 0, 0, to));  // the embedding
  EXPECT_TRUE(v.holds_output_layer(0, 1));
  // Interleaved keeps its chunk-major order: the last stage's chunk 0 feeds the first's chunk 1.
  core::PipeRoute interleaved(PipelineScheduleKind::kInterleaved, 4, 2);
  ASSERT_TRUE(interleaved.output_to(Kind::kForward, 3, 0, to));
  EXPECT_EQ(to, (core::StageChunk{0, 1}));
  EXPECT_TRUE(interleaved.holds_output_layer(3, 1));
}

// The DualPipe README's table, for PP stages on PP/2 devices: DualPipeV's bubble is
// (PP/2 - 1)(F&B + B - 3W), with F a chunk's forward, B its whole backward and W its weights' part.
// Here the paired forward and backward run one after the other (F&B = F + B), so with p devices
// and the inputs' part b = B - W it is (p - 1)(F + 2b - W): the walk gives exactly that when the
// three passes are equal, and no more when they are not. Every device is busy 2m (F + b + W).
TEST(DualPipeV, TheBubbleIsTheAuthorsCount) {
  for (auto [f, b, w] : {std::tuple{1.0, 1.0, 1.0}, std::tuple{1.0, 1.3, 0.7}})
    for (int p : {2, 4, 8})
      for (int m : {2 * p, 3 * p, 24}) {
        SCOPED_TRACE(::testing::Message() << "p=" << p << " m=" << m << " w=" << w);
        PipeCosts costs = uniform_costs(p, 2, f, b, 0);
        costs.weight.assign(p, std::vector<double>(2, w));
        PipeTiming t = time_pipeline(PipelineScheduleKind::kDualPipeV, p, m, 2, costs);
        for (double busy : t.busy) EXPECT_NEAR(busy, 2 * m * (f + b + w), 1e-9);
        double bubble = t.iteration - 2 * m * (f + b + w), count = (p - 1) * (f + 2 * b - w);
        if (f == b && b == w)
          EXPECT_NEAR(bubble, count, 1e-9);
        else
          EXPECT_LE(bubble, count + 1e-9);
      }
}

// testing::two_node_gpt (8 layers) with a vocabulary of 8, so that the output layer does not make
// the first stage the slowest; `free`: links too fast to matter, without latency.
std::string gpt_text(const std::string& parallelism, int workers, bool free = false) {
  std::string t = testing::two_node_gpt(parallelism, workers, 16, free ? "1e9GB/s" : "100Gbps");
  t.replace(t.find("vocabulary: 32000"), 17, "vocabulary: 8");
  std::string links = "bandwidth: 100GB/s, latency: 1us";
  if (free) t.replace(t.find(links), links.size(), "bandwidth: 1e9GB/s, latency: 0us");
  return t;
}

// Tensor 2 x pipeline 4 x data 2, 8 micro-batches of 1 a replica: SimGrid walks the V's ops and
// transfers as the closed form times them (each pair's two sends sharing their link); the same
// compute runs as under 1F1B, in a shorter step. On free links the bubble is at most the authors'
// count over 1F1B's (p - 1)(F + B): per layer and sequence (s = h) F = 28 s h^2, W = 24 s h^2, the
// inputs' part b = 2F - W (plus F recomputed), and a chunk holds half a stage, so the ratio is at
// most (F/2 + b - W/2) / (F + b + W): 0.405 (0.554 with full recomputation).
TEST(DualPipeV, SimGridAgreesWithTheClosedForm) {
  for (bool recompute : {false, true}) {
    std::string parallelism = std::string("tensor: 2, pipeline: 4, schedule: dualpipev") +
                              (recompute ? ", recompute: full, zero: 1" : "");
    SCOPED_TRACE(parallelism);
    core::Plan plan = testing::load_text("dualpipev-sim", gpt_text(parallelism, 16));
    core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
    ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
    EXPECT_EQ(closed.model_parallel->schedule, "dualpipev");
    EXPECT_EQ(closed.model_parallel->virtual_stages, 1);  // the plan's: the two chunks are the V's
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.01);
    EXPECT_GT(closed.model_parallel->pipeline_comm_s, 0);
    core::Plan one_f_one_b = plan;
    one_f_one_b.parallelism->schedule = core::PipelineScheduleKind::kOneFOneB;
    core::RunResult plain = predict_analytic(one_f_one_b);
    EXPECT_NEAR(closed.phases.compute_s, plain.phases.compute_s, 1e-9 * plain.phases.compute_s);
    EXPECT_LT(closed.step_time_s, plain.step_time_s);
    core::Plan free = testing::load_text("dualpipev-free", gpt_text(parallelism, 16, true));
    core::Plan free_1f1b = free;
    free_1f1b.parallelism->schedule = core::PipelineScheduleKind::kOneFOneB;
    double f = 28, w = 24, b = 2 * f - w + (recompute ? f : 0);
    double count = (f / 2 + b - w / 2) / (f + b + w);
    EXPECT_NEAR(count, recompute ? 0.554 : 0.405, 1e-3);
    EXPECT_LT(predict_analytic(free).model_parallel->bubble_s /
                  predict_analytic(free_1f1b).model_parallel->bubble_s,
              count);
  }
}

// The first stage holds the embedding and the output layer (tied: the one word matrix, with the
// learned positions) and, the DualPipe README's count, 2p + 1 micro-batch chunks in flight at most.
TEST(DualPipeV, TheFirstStageHoldsBothEndsOfTheModel) {
  core::Plan plan = testing::load_text(
      "dualpipev-memory", testing::two_node_gpt("pipeline: 4, schedule: dualpipev", 4, 16));
  core::ModelSplit s = core::model_split(plan);
  ASSERT_EQ(s.chunks, 2);
  ASSERT_EQ(s.layers_per_chunk, 1);
  double words = 32000.0 * 1024, positions = 1024.0 * 1024;
  double first = core::stage_parameters(plan, s, 0), last = core::stage_parameters(plan, s, 3);
  EXPECT_NEAR(first - last, words + positions, 1e-9 * first);
  EXPECT_EQ(core::peak_in_flight(PipelineScheduleKind::kDualPipeV, 0, 4, 16, 2), 9);
}

TEST(DualPipeV, RefusesWhatItIsNotModelledWith) {
  for (const char* extra :
       {", context: 2", ", zero: 3", ", overlap_grad_reduce: true",
        ", sequence_parallel: true, tp_comm_overlap: true",
        ", account_for_embedding_in_pipeline_split: true", ", framework: megatron"}) {
    SCOPED_TRACE(extra);
    testing::expect_refused(
        "dualpipev-refused",
        gpt_text(std::string("tensor: 2, pipeline: 2, schedule: dualpipev") + extra, 16), 0,
        "parallelism.schedule");
  }
  // 8 layers do not make 3 stages x 2 chunks; 4 micro-batches are fewer than twice 4 stages.
  testing::expect_refused("dualpipev-layers", gpt_text("pipeline: 3, schedule: dualpipev", 6), 0,
                          "dualpipev's two a stage");
  testing::expect_refused("dualpipev-microbatches",
                          testing::two_node_gpt("pipeline: 4, schedule: dualpipev", 16, 16), 0,
                          "twice as many micro-batches");
}

// DualPipe on p stages: each half runs DualPipeV's steps for p / 2 stages over each direction's
// m / 2 micro-batches, so with equal passes its bubble is the authors' (p/2 - 1)(F&B + B - 3W) and
// every stage is busy m (F + b + W).
TEST(DualPipe, EachHalfRunsDualPipeVsStepsAndTheBubbleIsTheAuthorsCount) {
  for (int p : {2, 4, 8})
    for (int m : {2 * p, 24}) {
      SCOPED_TRACE(::testing::Message() << "p=" << p << " m=" << m);
      for (int s = 0; s < p; ++s) {
        auto ops = core::stage_schedule(PipelineScheduleKind::kDualPipe, s, p, m, 2);
        auto half = core::stage_schedule(PipelineScheduleKind::kDualPipeV, std::min(s, p - 1 - s),
                                         p / 2, m / 2, 2);
        ASSERT_EQ(ops.size(), half.size());
        for (std::size_t i = 0; i < ops.size(); ++i)
          EXPECT_EQ(ops[i].chunk, s < p / 2 ? half[i].chunk : 1 - half[i].chunk);
      }
      PipeCosts costs = uniform_costs(p, 2, 1, 1, 0);
      costs.weight.assign(p, std::vector<double>(2, 1));
      PipeTiming t = time_pipeline(PipelineScheduleKind::kDualPipe, p, m, 2, costs);
      for (double busy : t.busy) EXPECT_NEAR(busy, 3.0 * m, 1e-9);
      EXPECT_NEAR(t.iteration - 3.0 * m, (p / 2 - 1) * 2.0, 1e-9);
    }
  EXPECT_NE(core::check_schedule(PipelineScheduleKind::kDualPipe, 3, 6, 2), "");
  EXPECT_NE(core::check_schedule(PipelineScheduleKind::kDualPipe, 4, 9, 2), "");
  // Two copies, one a direction: the middle hop crosses from stage p/2 - 1 to p/2.
  core::PipeRoute route(PipelineScheduleKind::kDualPipe, 4, 2);
  EXPECT_EQ(route.positions(), 4);
  core::StageChunk to;
  ASSERT_TRUE(route.output_to(Kind::kForward, 1, 0, to));
  EXPECT_EQ(to, (core::StageChunk{2, 0}));
  ASSERT_TRUE(route.output_to(Kind::kForward, 2, 1, to));
  EXPECT_EQ(to, (core::StageChunk{1, 1}));
  EXPECT_TRUE(route.holds_output_layer(3, 0) && route.holds_output_layer(0, 1));
  EXPECT_TRUE(route.holds_embedding(0, 0) && route.holds_embedding(3, 1));
}

// Tensor 2 x pipeline 4 x data 2: each stage holds its mirror's layers too (twice DualPipeV's
// parameters on 4 stages, the first and last stage both ends of the model), the gradient summed
// over the 4 ranks of a stage and its mirror, and SimGrid walks it as the closed form times it.
TEST(DualPipe, EveryStageHoldsItsMirrorAndSimGridAgreesWithTheClosedForm) {
  core::Plan plan = testing::load_text("dualpipe-sim",
                                       gpt_text("tensor: 2, pipeline: 4, schedule: dualpipe", 16));
  core::ModelSplit s = core::model_split(plan);
  EXPECT_EQ(s.layers_per_chunk, 2);
  EXPECT_EQ(core::gradient_split(s).data, 4);
  core::Plan v = plan;
  v.parallelism->schedule = PipelineScheduleKind::kDualPipeV;
  core::ModelSplit vs = core::model_split(v);
  EXPECT_NEAR(core::stage_parameters(plan, s, 1), 2 * core::stage_parameters(v, vs, 1), 1);
  EXPECT_NEAR(core::stage_parameters(plan, s, 0), core::stage_parameters(plan, s, 3), 1);
  core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
  ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
  EXPECT_EQ(closed.model_parallel->schedule, "dualpipe");
  EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.01);
  EXPECT_NEAR(sim.model_parallel->data_comm_s / closed.model_parallel->data_comm_s, 1.0, 0.05);
  // The same compute as DualPipeV's on these stages, and a gradient twice as large to sum.
  core::RunResult half = predict_analytic(v);
  EXPECT_NEAR(closed.phases.compute_s, half.phases.compute_s, 1e-3 * half.phases.compute_s);
  EXPECT_GT(closed.model_parallel->data_comm_s, half.model_parallel->data_comm_s);
  testing::expect_refused("dualpipe-odd",
                          testing::two_node_gpt("pipeline: 2, schedule: dualpipe", 2, 15), 0,
                          "even count");
}

}  // namespace
}  // namespace scaleout::sim
