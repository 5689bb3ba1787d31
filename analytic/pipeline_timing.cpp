#include "analytic/pipeline_timing.hpp"

#include <algorithm>
#include <stdexcept>

namespace scaleout::sim {

namespace {

using core::PipeOp;

// When each (stage, chunk, micro-batch) forward and backward ended; negative: not yet run.
class OpEnds {
 public:
  OpEnds(int stages, int chunks, int microbatches)
      : chunks_(chunks),
        microbatches_(microbatches),
        forward_(static_cast<std::size_t>(stages) * chunks * microbatches, -1),
        backward_(forward_.size(), -1),
        weight_(forward_.size(), -1) {}
  double& at(PipeOp::Kind kind, int stage, int chunk, int microbatch) {
    std::size_t i =
        (static_cast<std::size_t>(stage) * chunks_ + chunk) * microbatches_ + microbatch;
    return kind == PipeOp::Kind::kForward    ? forward_[i]
           : kind == PipeOp::Kind::kBackward ? backward_[i]
                                             : weight_[i];
  }

 private:
  int chunks_, microbatches_;
  std::vector<double> forward_, backward_, weight_;
};

// When op's input is ready on `stage` (negative: not yet). Chunk c of the last stage feeds chunk
// c + 1 of the first, as the interleaved schedule places chunks round the stages.
double input_ready(OpEnds& ends, const PipeOp& op, int stage, int stages, int chunks,
                   const std::vector<double>& transfer) {
  using Kind = PipeOp::Kind;
  auto arrived = [&](Kind kind, int s, int c, int boundary) {
    double end = ends.at(kind, s, c, op.microbatch);
    return end < 0 ? -1.0 : end + transfer[boundary];
  };
  int last = stages - 1;
  if (op.kind == Kind::kWeight) return ends.at(Kind::kBackward, stage, op.chunk, op.microbatch);
  if (op.kind == Kind::kForward) {
    if (stage > 0) return arrived(Kind::kForward, stage - 1, op.chunk, stage - 1);
    if (op.chunk > 0) return arrived(Kind::kForward, last, op.chunk - 1, last);
    return 0;
  }
  if (stage < last) return arrived(Kind::kBackward, stage + 1, op.chunk, stage);
  if (op.chunk < chunks - 1) return arrived(Kind::kBackward, 0, op.chunk + 1, last);
  return ends.at(Kind::kForward, stage, op.chunk, op.microbatch);  // the loss: own forward
}

double op_cost(const PipeCosts& costs, const PipeOp& op, int stage) {
  switch (op.kind) {
    case PipeOp::Kind::kForward:
      return costs.forward[stage][op.chunk];
    case PipeOp::Kind::kBackward:
      return costs.backward[stage][op.chunk];
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

PipeTiming time_pipeline(core::PipelineScheduleKind kind, int stages, int microbatches, int chunks,
                         const PipeCosts& costs) {
  std::vector<std::vector<PipeOp>> schedules(stages);
  PipeTiming t;
  t.busy.assign(stages, 0);
  t.stages.assign(stages, {});
  for (int s = 0; s < stages; ++s) {
    schedules[s] = core::stage_schedule(kind, s, stages, microbatches, chunks);
    t.stages[s].reserve(schedules[s].size());
  }
  OpEnds ends(stages, chunks, microbatches);
  std::vector<std::size_t> next(stages, 0);
  std::vector<double> free_at(stages, 0);
  // Runs each stage as far as its inputs allow, round after round, until every op has run.
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < stages; ++s) {
      for (; next[s] < schedules[s].size(); ++next[s]) {
        const PipeOp& op = schedules[s][next[s]];
        double ready = input_ready(ends, op, s, stages, chunks, costs.transfer);
        if (ready < 0) break;
        double cost = op_cost(costs, op, s);
        if (!costs.op_extra.empty()) cost += costs.op_extra[s][next[s]];
        double start = std::max(free_at[s], ready);
        free_at[s] = start + cost;
        ends.at(op.kind, s, op.chunk, op.microbatch) = free_at[s];
        t.busy[s] += cost;
        t.stages[s].push_back({op, start, free_at[s]});
        t.iteration = std::max(t.iteration, free_at[s]);
        progress = true;
      }
    }
  }
  for (int s = 0; s < stages; ++s)
    if (next[s] < schedules[s].size())
      throw std::logic_error("pipeline schedule deadlocks at stage " + std::to_string(s));
  return t;
}

}  // namespace scaleout::sim
