#include "core/parallel/pipeline_schedule.hpp"

#include <algorithm>

namespace scaleout::core {

namespace {

using Kind = PipeOp::Kind;

std::vector<PipeOp> gpipe(int microbatches) {
  std::vector<PipeOp> ops;
  ops.reserve(2 * static_cast<std::size_t>(microbatches));
  for (int m = 0; m < microbatches; ++m) ops.push_back({Kind::kForward, m, 0});
  for (int m = 0; m < microbatches; ++m) ops.push_back({Kind::kBackward, m, 0});
  return ops;
}

// Warm-up forwards, then forward and backward in turn, then the cool-down backwards. `forward(k)`
// and `backward(k)` give the k-th of each.
template <typename F, typename B>
std::vector<PipeOp> one_f_one_b(int total, int warmup, F forward, B backward) {
  std::vector<PipeOp> ops;
  ops.reserve(2 * static_cast<std::size_t>(total));
  warmup = std::min(warmup, total);
  int f = 0, b = 0;
  for (; f < warmup; ++f) ops.push_back(forward(f));
  while (f < total) {
    ops.push_back(forward(f++));
    ops.push_back(backward(b++));
  }
  while (b < total) ops.push_back(backward(b++));
  return ops;
}

// ZB-H1 (Qi et al. 2023, "Zero Bubble Pipeline Parallelism", its figure of ZB-H1): 1F1B's order
// of forwards and backwards, each backward followed by the weight pass of the oldest waiting
// micro-batch once more than `stage` wait; the rest after the last backward. The first stage,
// which already holds 1F1B's most micro-batches, runs B and W back to back; a later stage holds
// fewer under 1F1B and finishes earlier, so it keeps more weight passes back to fill its idle
// time, up to the first stage's activation peak.
std::vector<PipeOp> zero_bubble(int stage, int stages, int microbatches) {
  std::vector<PipeOp> ops;
  ops.reserve(3 * static_cast<std::size_t>(microbatches));
  int f = 0, b = 0, w = 0;
  auto backward = [&] {
    ops.push_back({Kind::kBackward, b++, 0});
    if (b - w > stage) ops.push_back({Kind::kWeight, w++, 0});
  };
  for (int warmup = std::min(stages - stage - 1, microbatches); f < warmup;)
    ops.push_back({Kind::kForward, f++, 0});
  while (f < microbatches) {
    ops.push_back({Kind::kForward, f++, 0});
    backward();
  }
  while (b < microbatches) backward();
  while (w < microbatches) ops.push_back({Kind::kWeight, w++, 0});
  return ops;
}

// Forwards `stage` runs before its first backward (every one for GPipe).
int warmup_forwards(PipelineScheduleKind kind, int stage, int stages, int microbatches,
                    int chunks) {
  int total = microbatches * chunks;
  if (kind == PipelineScheduleKind::kGpipe) return total;
  if (kind == PipelineScheduleKind::kOneFOneB || kind == PipelineScheduleKind::kZeroBubble)
    return std::min(stages - stage - 1, total);
  // With as many micro-batches as stages, Megatron runs every forward first.
  int warmup = microbatches == stages ? total : (stages - stage - 1) * 2 + (chunks - 1) * stages;
  return std::min(warmup, total);
}

}  // namespace

std::string check_schedule(PipelineScheduleKind kind, int stages, int microbatches, int chunks) {
  if (stages < 1 || microbatches < 1 || chunks < 1) return "stages, micro-batches and chunks >= 1";
  if (kind != PipelineScheduleKind::kInterleaved && chunks != 1)
    return std::string("the ") + schedule_name(kind) + " schedule runs one chunk per stage";
  if (kind == PipelineScheduleKind::kInterleaved && microbatches % stages != 0)
    return "the interleaved schedule needs micro-batches per replica (" +
           std::to_string(microbatches) + ") in multiples of the pipeline stages (" +
           std::to_string(stages) + ")";
  return "";
}

std::vector<PipeOp> stage_schedule(PipelineScheduleKind kind, int stage, int stages,
                                   int microbatches, int chunks) {
  if (kind == PipelineScheduleKind::kGpipe) return gpipe(microbatches);
  if (kind == PipelineScheduleKind::kZeroBubble) return zero_bubble(stage, stages, microbatches);
  int warmup = warmup_forwards(kind, stage, stages, microbatches, chunks);
  if (kind == PipelineScheduleKind::kOneFOneB)
    return one_f_one_b(
        microbatches, warmup,
        [](int k) {
          return PipeOp{Kind::kForward, k, 0};
        },
        [](int k) {
          return PipeOp{Kind::kBackward, k, 0};
        });
  // Interleaved (Megatron-LM): micro-batches go through the chunks in groups of `stages`; the
  // k-th forward is chunk (k mod p*v) / p of micro-batch (k / p*v) * p + k mod p, backwards run
  // the chunks in reverse.
  int p = stages, v = chunks, total = microbatches * chunks;
  auto microbatch = [p, v](int k) { return k / (p * v) * p + k % p; };
  auto forward = [=](int k) { return PipeOp{Kind::kForward, microbatch(k), k % (p * v) / p}; };
  auto backward = [=](int k) {
    return PipeOp{Kind::kBackward, microbatch(k), v - 1 - k % (p * v) / p};
  };
  return one_f_one_b(total, warmup, forward, backward);
}

int peak_in_flight(PipelineScheduleKind kind, int stage, int stages, int microbatches, int chunks) {
  // Zero bubble: every stage takes min(m, p) forwards before its first weight pass.
  if (kind == PipelineScheduleKind::kZeroBubble) return std::min(microbatches, stages);
  int total = microbatches * chunks;
  int warmup = warmup_forwards(kind, stage, stages, microbatches, chunks);
  return warmup < total ? warmup + 1 : total;  // the warm-up, then one more before each backward
}

int peak_in_flight(const std::vector<PipeOp>& ops) {
  // A split backward frees the micro-batch's activations with its weight pass.
  bool split = std::any_of(ops.begin(), ops.end(),
                           [](const PipeOp& op) { return op.kind == Kind::kWeight; });
  Kind frees = split ? Kind::kWeight : Kind::kBackward;
  int now = 0, peak = 0;
  for (const auto& op : ops) {
    if (op.kind == Kind::kForward) ++now;
    if (op.kind == frees) --now;
    peak = std::max(peak, now);
  }
  return peak;
}

const char* schedule_name(PipelineScheduleKind kind) {
  switch (kind) {
    case PipelineScheduleKind::kGpipe:
      return "gpipe";
    case PipelineScheduleKind::kOneFOneB:
      return "1f1b";
    case PipelineScheduleKind::kInterleaved:
      return "interleaved";
    case PipelineScheduleKind::kZeroBubble:
      return "zero_bubble";
  }
  return "?";
}

const char* pass_name(PipeOp::Kind kind) {
  switch (kind) {
    case Kind::kForward:
      return "forward";
    case Kind::kBackward:
      return "backward";
    case Kind::kWeight:
      return "weight";
  }
  return "?";
}

PipelineScheduleKind schedule_named(const std::string& name) {
  for (auto kind : {PipelineScheduleKind::kGpipe, PipelineScheduleKind::kInterleaved,
                    PipelineScheduleKind::kZeroBubble})
    if (name == schedule_name(kind)) return kind;
  return PipelineScheduleKind::kOneFOneB;
}

const char* recompute_name(Recompute recompute) {
  switch (recompute) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "?";
}

}  // namespace scaleout::core
