#include "analytic/pipeline_timing.hpp"

#include <algorithm>
#include <stdexcept>

namespace scaleout::sim {

namespace {

using core::PipeOp;

// When each (stage, chunk, micro-batch) forward and backward ended (negative: not yet run), and
// how many transfers its output's shared its link with (DualPipe's pairs send two at once).
class OpEnds {
 public:
  OpEnds(int stages, int chunks, int microbatches)
      : chunks_(chunks),
        microbatches_(microbatches),
        forward_(static_cast<std::size_t>(stages) * chunks * microbatches, -1),
        backward_(forward_.size(), -1),
        weight_(forward_.size(), -1),
        sharing_(2 * forward_.size(), 1) {}
  double& at(PipeOp::Kind kind, int stage, int chunk, int microbatch) {
    std::size_t i = index(stage, chunk, microbatch);
    return kind == PipeOp::Kind::kForward    ? forward_[i]
           : kind == PipeOp::Kind::kBackward ? backward_[i]
                                             : weight_[i];
  }
  // Of a forward's or a backward's output.
  double& sharing(PipeOp::Kind kind, int stage, int chunk, int microbatch) {
    return sharing_[2 * index(stage, chunk, microbatch) + (kind == PipeOp::Kind::kForward ? 0 : 1)];
  }

 private:
  std::size_t index(int stage, int chunk, int microbatch) const {
    return (static_cast<std::size_t>(stage) * chunks_ + chunk) * microbatches_ + microbatch;
  }
  int chunks_, microbatches_;
  std::vector<double> forward_, backward_, weight_, sharing_;
};

// The transfer between two stages a hop crosses (-1: none, the V-shape's turn on the last stage).
// Interleaved: the boundary after the sender for forwards and after the receiver for backwards
// (from the last stage round to the first is the last boundary); DualPipe and DualPipeV, whose
// hops go both ways: between the two.
int hop_boundary(core::PipelineScheduleKind kind, PipeOp::Kind pass, int from, int to) {
  if (!core::is_dualpipe(kind)) return pass == PipeOp::Kind::kForward ? from : to;
  return from == to ? -1 : std::min(from, to);
}

// When op's input is ready on `stage` (negative: not yet): the end of the pass that feeds it
// (core::PipeRoute) and the transfer across, its own backward for a weight pass, its own forward
// for the loss's backward.
double input_ready(OpEnds& ends, const PipeOp& op, int stage, const core::PipeRoute& route,
                   core::PipelineScheduleKind kind, const std::vector<double>& transfer) {
  using Kind = PipeOp::Kind;
  if (op.kind == Kind::kWeight) return ends.at(Kind::kBackward, stage, op.chunk, op.microbatch);
  core::StageChunk from;
  if (!route.input_from(op.kind, stage, op.chunk, from))
    return op.kind == Kind::kForward ? 0 : ends.at(Kind::kForward, stage, op.chunk, op.microbatch);
  double end = ends.at(op.kind, from.stage, from.chunk, op.microbatch);
  if (end < 0) return -1;
  int boundary = hop_boundary(kind, op.kind, from.stage, stage);
  if (boundary < 0) return end;
  return end + transfer[boundary] * ends.sharing(op.kind, from.stage, from.chunk, op.microbatch);
}

double op_cost(const PipeCosts& costs, const PipeOp& op, int stage) {
  switch (op.kind) {
    case PipeOp::Kind::kForward:
      return costs.forward[stage][op.chunk];
    case PipeOp::Kind::kBackward:  // with its weights' gradient unless that runs apart
      return costs.backward[stage][op.chunk] +
             (op.weight_apart || costs.weight.empty() ? 0.0 : costs.weight[stage][op.chunk]);
    case PipeOp::Kind::kWeight:
      return costs.weight.empty() ? 0.0 : costs.weight[stage][op.chunk];
  }
  return 0;
}

}  // namespace

PipeCosts uniform_costs(int stages, int chunks, double forward, double backward, double transfer) {
  PipeCosts c;
  c.forward.assign(stages, std::vector<double>(chunks, forward));
  c.backward.assign(stages, std::vector<double>(chunks, backward));
  c.transfer.assign(stages, transfer);
  return c;
}

namespace {

// One walk of every stage's schedule: where each stage is in it and when it is free.
class ScheduleWalk {
 public:
  ScheduleWalk(core::PipelineScheduleKind kind, int stages, int microbatches, int chunks,
               const PipeCosts& costs)
      : kind_(kind),
        costs_(costs),
        route_(kind, stages, chunks),
        schedules_(stages),
        ends_(stages, chunks, microbatches),
        next_(stages, 0),
        free_at_(stages, 0) {
    t_.busy.assign(stages, 0);
    t_.hidden.assign(stages, 0);
    t_.stages.assign(stages, {});
    for (int s = 0; s < stages; ++s) {
      schedules_[s] = core::stage_schedule(kind, s, stages, microbatches, chunks);
      t_.stages[s].reserve(schedules_[s].size());
    }
  }

  // Runs stage s's next op, or its next pair (DualPipe's F&B: both outputs sent after the second,
  // both inputs taken before the first unless it is the last stage's first), if the inputs have
  // arrived; false if not, or if the stage is through.
  bool run_next(int s) {
    const std::vector<PipeOp>& ops = schedules_[s];
    std::size_t i = next_[s];
    if (i >= ops.size()) return false;
    std::size_t count = ops[i].sends_with_next && i + 1 < ops.size() ? 2 : 1;
    double ready[2] = {0, 0};
    for (std::size_t k = 0; k < count; ++k) {
      ready[k] = input_ready(ends_, ops[i + k], s, route_, kind_, costs_.transfer);
      if (ready[k] < 0) return false;
    }
    if (count == 2 && ops[i].takes_with_next) ready[0] = std::max(ready[0], ready[1]);
    double at = free_at_[s];
    double pair = count == 2 && costs_.pair ? costs_.pair(s, ops[i], ops[i + 1]) : -1;
    if (pair >= 0) {
      at = run_pair(s, i, std::max({at, ready[0], ready[1]}), pair);
    } else {
      for (std::size_t k = 0; k < count; ++k) {
        at = std::max(at, ready[k]);
        double cost = cost_of(s, i + k);
        t_.stages[s].push_back({ops[i + k], at, at + cost});
        t_.busy[s] += cost;
        at += cost;
      }
    }
    for (std::size_t k = i; k < i + count; ++k)  // the outputs leave once the pair is through
      ends_.at(ops[k].kind, s, ops[k].chunk, ops[k].microbatch) = at;
    if (count == 2) share_link(s, ops[i], ops[i + 1]);
    free_at_[s] = at;
    t_.iteration = std::max(t_.iteration, at);
    next_[s] = i + count;
    return true;
  }

  double cost_of(int s, std::size_t i) const {
    double cost = op_cost(costs_, schedules_[s][i], s);
    return costs_.op_extra.empty() ? cost : cost + costs_.op_extra[s][i];
  }

  // An overlapped pair of `span` seconds from `at`: the two ops share it as their costs do (they
  // run together; the timeline draws each its share). Returns its end.
  double run_pair(int s, std::size_t i, double at, double span) {
    double first = cost_of(s, i), second = cost_of(s, i + 1);
    double split = first + second > 0 ? at + span * first / (first + second) : at;
    t_.stages[s].push_back({schedules_[s][i], at, split});
    t_.stages[s].push_back({schedules_[s][i + 1], split, at + span});
    t_.busy[s] += span;
    t_.hidden[s] += first + second - span;
    return at + span;
  }

  // A pair whose two outputs go to the same other stage sends them together over one link: each
  // arrives as if twice its size.
  void share_link(int s, const PipeOp& first, const PipeOp& second) {
    core::StageChunk a, b;
    if (!route_.output_to(first.kind, s, first.chunk, a) ||
        !route_.output_to(second.kind, s, second.chunk, b) || a.stage != b.stage || a.stage == s)
      return;
    for (const PipeOp* op : {&first, &second})
      ends_.sharing(op->kind, s, op->chunk, op->microbatch) = 2;
  }

  PipeTiming finish() && {
    for (std::size_t s = 0; s < schedules_.size(); ++s)
      if (next_[s] < schedules_[s].size())
        throw std::logic_error("pipeline schedule deadlocks at stage " + std::to_string(s));
    return std::move(t_);
  }

 private:
  core::PipelineScheduleKind kind_;
  const PipeCosts& costs_;
  core::PipeRoute route_;
  std::vector<std::vector<PipeOp>> schedules_;
  OpEnds ends_;
  std::vector<std::size_t> next_;
  std::vector<double> free_at_;
  PipeTiming t_;
};

}  // namespace

PipeTiming time_pipeline(core::PipelineScheduleKind kind, int stages, int microbatches, int chunks,
                         const PipeCosts& costs) {
  ScheduleWalk walk(kind, stages, microbatches, chunks, costs);
  // Runs each stage as far as its inputs allow, round after round, until every op has run.
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < stages; ++s)
      while (walk.run_next(s)) progress = true;
  }
  return std::move(walk).finish();
}

}  // namespace scaleout::sim
