// DualPipe's overlapped F&B pairs (core/model/pair_overlap.hpp): the slots each pass's compute and
// the other's all-to-alls share, the closed form's pairs against a count by hand, and SimGrid
// running the same slots.
#include <gtest/gtest.h>

#include <algorithm>

#include "analytic/analytic.hpp"
#include "analytic/analytic_model_parallel.hpp"
#include "core/model/pair_overlap.hpp"
#include "core/model/transformer.hpp"
#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

using core::PairSlot;
using core::PassPiece;

// One MoE layer of forward 10 and backward 20 FLOPs, its MLP block 0.6 of them.
core::ModelParallelWork one_moe_layer() {
  core::ModelParallelWork w;
  w.layer_forward_flops = 10;
  w.layer_backward_flops = 20;
  w.moe_mlp_share = 0.6;
  w.dispatch_bytes = 1;
  return w;
}

void expect_slot(const PairSlot& slot, int compute_pass, double flops, int exchange_pass) {
  EXPECT_EQ(slot.compute_pass, compute_pass);
  EXPECT_NEAR(slot.flops, flops, 1e-12);
  EXPECT_EQ(slot.exchange_pass, exchange_pass);
}

// Forward: attention 4, dispatch, MLP 6, combine; backward: the combine's gradient, MLP 12, the
// dispatch's, attention 8. Each compute runs beside the other pass's next all-to-all, the order of
// the DeepSeek-V3 report's figure 4.
TEST(PairOverlap, EachPassComputesBesideTheOthersAllToAll) {
  core::ModelParallelWork w = one_moe_layer();
  std::vector<PassPiece> f = core::pass_pieces(w, 1, 1, true, false, 0);
  std::vector<PassPiece> b = core::pass_pieces(w, 1, 1, false, false, 0);
  ASSERT_EQ(f.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_TRUE(f[1].exchange && f[3].exchange && b[0].exchange && b[2].exchange);
  std::vector<PairSlot> slots = core::pair_slots(f, b);
  ASSERT_EQ(slots.size(), 4u);
  expect_slot(slots[0], 0, 4, 1);
  expect_slot(slots[1], 1, 12, 0);
  expect_slot(slots[2], 0, 6, 1);
  expect_slot(slots[3], 1, 8, 0);
  // At 1 FLOP/s beside all-to-alls of 5 s, with no slowdown: each slot the longer of the two.
  EXPECT_DOUBLE_EQ(core::pair_seconds(slots, 1, {5, 5}, 0), 5 + 12 + 6 + 8);
  // Each pass's first all-to-all goes to the experts, its second comes back: at 5 s and 7 s,
  // slots 0 and 1 meet a 5 s one, slots 2 and 3 a 7 s one.
  EXPECT_TRUE(slots[0].to_experts && slots[1].to_experts);
  EXPECT_FALSE(slots[2].to_experts || slots[3].to_experts);
  EXPECT_DOUBLE_EQ(core::pair_seconds(slots, 1, {5, 7}, 0), 5 + 12 + 7 + 8);
  // Full recomputation: the layer's forward again, with its two all-to-alls, before its backward;
  // both passes start with compute, so the forward's runs alone first.
  w.alltoalls_backward = 4;
  w.layer_backward_flops = 30;
  slots = core::pair_slots(f, core::pass_pieces(w, 1, 1, false, false, 0));
  ASSERT_EQ(slots.size(), 9u);
  expect_slot(slots[0], 0, 4, -1);
  expect_slot(slots[1], 1, 4, 0);
  expect_slot(slots[2], 0, 6, 1);
  expect_slot(slots[3], 1, 6, 0);
  expect_slot(slots[4], -1, 0, 1);
  expect_slot(slots[5], -1, 0, 1);
  expect_slot(slots[6], 1, 12, -1);
  expect_slot(slots[7], -1, 0, 1);
  expect_slot(slots[8], 1, 8, -1);
}

// A pair is overlapped only where it takes both inputs together (dualpipev.py runs the last
// stage's first pair one pass after the other) and its layers exchange tokens.
TEST(PairOverlap, OnlyPairsTakenTogetherWithTokensToExchange) {
  core::ModelParallelWork w = one_moe_layer();
  core::PipeOp pair{core::PipeOp::Kind::kForward, 0, 0};
  EXPECT_FALSE(core::overlaps_pair(w, pair));
  pair.sends_with_next = true;
  EXPECT_FALSE(core::overlaps_pair(w, pair));
  pair.takes_with_next = true;
  EXPECT_TRUE(core::overlaps_pair(w, pair));
  w.dispatch_bytes = 0;  // no expert parallelism
  EXPECT_FALSE(core::overlaps_pair(w, pair));
}

// testing::two_node_gpt's model (8 layers, hidden 1,024, sequence 1,024, vocabulary 8) with every
// layer a MoE layer of 8 experts, 2 a token; pipeline 2 under DualPipeV (2 layers a chunk) and
// expert 4, on 8 devices of one node.
std::string moe_dualpipev_text(const std::string& schedule) {
  std::string t = testing::two_node_gpt("pipeline: 2, expert: 4, schedule: " + schedule, 8, 16);
  t.replace(t.find("vocabulary: 32000"), 17, "vocabulary: 8, moe: { experts: 8, top_k: 2 }");
  return t;
}

// The MLP block's share by hand (s = h = 1,024, a gelu MLP of 4h): the router 8h and two experts'
// 2 x 8h^2 against the attention's 4h^2 and 2sh, per token and half a FLOP.
TEST(PairOverlap, TheMlpShareCountsTheBlocksFlops) {
  core::Plan plan = testing::load_text("pair-share", moe_dualpipev_text("dualpipev"));
  double h = 1024;
  double mlp = 8 * h + 16 * h * h, attention = 4 * h * h + 2 * h * h;
  EXPECT_NEAR(core::moe_mlp_share(*plan.workload.transformer), mlp / (mlp + attention), 1e-12);
}

// The last stage's overlapped pairs each hide, per layer, the shorter of each compute piece and
// the all-to-all beside it: min(F attention, a) + min(B MLP, a) + min(F MLP, a) + min(B
// attention, a); the closed form's walk saves exactly that, and reports it off the all-to-alls.
TEST(PairOverlap, TheClosedFormHidesWhatEachSlotOverlaps) {
  core::Plan plan = testing::load_text("pair-closed", moe_dualpipev_text("dualpipev"));
  core::ParallelState state = core::ParallelState::of(plan);
  ModelParallelCosts c = model_parallel_costs(plan, state, nullptr);
  ASSERT_TRUE(c.pair_work);
  ASSERT_GT(c.alltoall.back, 0);
  ASSERT_EQ(c.alltoall.to_experts, c.alltoall.back);  // both ways at 16 bits
  double share = core::moe_mlp_share(*plan.workload.transformer);
  double f = c.layer_forward_compute, b = c.layer_backward_compute, a = c.alltoall.back;
  double per_layer = std::min(f * (1 - share), a) + std::min(b * share, a) +
                     std::min(f * share, a) + std::min(b * (1 - share), a);
  int last = 1, pairs = 0;
  const core::ModelSplit& s = state.split();
  for (const core::PipeOp& op : core::stage_schedule(s.schedule, last, 2, s.microbatches, 2))
    pairs += op.sends_with_next && op.takes_with_next;
  ASSERT_GT(pairs, 0);
  PipeTiming t = time_pipeline(s.schedule, 2, s.microbatches, 2, pipe_costs(state, c));
  EXPECT_NEAR(t.hidden[last], pairs * s.layers_per_chunk * per_layer, 1e-9 * t.hidden[last]);
  // The all-to-alls the result reports are those of the busiest stage less what it hid.
  core::RunResult closed = predict_analytic(plan);
  int busiest = static_cast<int>(std::max_element(t.busy.begin(), t.busy.end()) - t.busy.begin());
  // Every layer a MoE layer: two all-to-alls forward and two backward each, both chunks.
  double all = s.microbatches * 2.0 * s.layers_per_chunk * 4 * a;
  EXPECT_NEAR(closed.model_parallel->expert_comm_s, all - t.hidden[busiest], 1e-9 * all);
}

// SimGrid runs the pairs' slots as the closed form times them: compute on the device stream beside
// the all-to-alls; under DualPipe (each half of the stages DualPipeV's steps) too.
TEST(PairOverlap, SimGridAgreesWithTheClosedForm) {
  for (const char* schedule : {"dualpipev", "dualpipe"}) {
    SCOPED_TRACE(schedule);
    core::Plan plan = testing::load_text("pair-sim", moe_dualpipev_text(schedule));
    core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
    ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.02);
    EXPECT_NEAR(sim.model_parallel->expert_comm_s / closed.model_parallel->expert_comm_s, 1.0,
                0.05);
    EXPECT_NEAR(sim.phases.compute_s / closed.phases.compute_s, 1.0, 0.02);
  }
}

}  // namespace
}  // namespace scaleout::sim
