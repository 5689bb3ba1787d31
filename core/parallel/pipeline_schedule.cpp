#include "core/parallel/pipeline_schedule.hpp"

#include <algorithm>
#include <deque>

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
    ops.push_back({Kind::kBackward, b++, 0, true});
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

// DualPipeV's ops in the order deepseek-ai/DualPipe's dualpipev.py runs them: each chunk's
// forwards and backwards take its micro-batches in turn, and a weight pass the oldest backward
// that left its weights' gradient waiting.
class DualPipeVOrder {
 public:
  void forward(int chunk) { ops_.push_back({Kind::kForward, forwards_[chunk]++, chunk}); }
  // A forward and the backward after it as one pair (the file's _forward_backward_chunk); `take`:
  // with both inputs taken first.
  void pair(int forward_chunk, int backward_chunk, bool take = true) {
    forward(forward_chunk);
    ops_.back().sends_with_next = true;
    ops_.back().takes_with_next = take;
    backward(backward_chunk);
  }
  void backward(int chunk, bool weight_apart = false) {
    PipeOp op{Kind::kBackward, backwards_[chunk]++, chunk, weight_apart};
    ops_.push_back(op);
    if (weight_apart) waiting_.push_back({Kind::kWeight, op.microbatch, chunk});
  }
  void weight() {
    if (waiting_.empty()) return;
    ops_.push_back(waiting_.front());
    waiting_.pop_front();
  }
  std::vector<PipeOp> ops() && { return std::move(ops_); }

 private:
  std::vector<PipeOp> ops_;
  std::deque<PipeOp> waiting_;
  int forwards_[2] = {0, 0}, backwards_[2] = {0, 0};
};

// Its steps, named as the file names them (F0: a forward of chunk 0, B1: a backward of chunk 1,
// W: a weight pass); the pairs it overlaps (F0B1, F1B0) run here one after the other. The last
// stage's first F0B1 the file does not overlap, to shorten the bubble: its backward's input is
// taken after the forward, but both outputs are sent after the backward, as a pair's.
std::vector<PipeOp> dualpipev(int stage, int stages, int microbatches) {
  DualPipeVOrder o;
  int after = stages - stage - 1;                               // the stages after this one
  for (int i = 0; i < 2 * after; ++i) o.forward(0);             // 1: nF0
  for (int i = 0; i <= stage; ++i) o.forward(0), o.forward(1);  // 2: nF0F1
  for (int i = 0; i < after; ++i) o.backward(1, true), o.weight(), o.forward(1);  // 3: nB1W1F1
  for (int i = 0; i < microbatches - 2 * stages + stage + 1; ++i) {               // 4: nF0B1F1B0
    o.pair(0, 1, i > 0 || after > 0);
    o.pair(1, 0);
  }
  for (int i = 0; i < after; ++i) o.backward(1), o.pair(1, 0);  // 5: nB1F1B0
  // 6: nB1B0, the second half with their weight passes apart (from B1 on odd stages, B0 on even).
  bool apart = false;
  for (int i = 0; i <= stage; ++i) {
    if (i == (stage + 1) / 2 && stage % 2 == 1) apart = true;
    o.backward(1, apart);
    if (i == (stage + 1) / 2 && stage % 2 == 0) apart = true;
    o.backward(0, apart);
  }
  for (int i = 0; i < after; ++i) o.weight(), o.backward(0, true);  // 7: nWB0
  for (int i = 0; i <= stage; ++i) o.weight();                      // 8: nW
  return std::move(o).ops();
}

// DualPipe (dualpipe.py): a stage and its mirror run DualPipeV's steps as the stage min(s, p - 1 -
// s) of p / 2, over each direction's m / 2 micro-batches; on the second half chunk 0 (the file's
// phase 0) is the micro-batches coming up, the chunk of the mirror's copy, so the chunks swap.
std::vector<PipeOp> dualpipe(int stage, int stages, int microbatches) {
  int half = std::min(stage, stages - 1 - stage);
  std::vector<PipeOp> ops = dualpipev(half, stages / 2, microbatches / 2);
  if (stage >= stages / 2)
    for (PipeOp& op : ops) op.chunk = 1 - op.chunk;
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

int PipeRoute::position(int stage, int chunk) const {
  if (two_ways_) return chunk == 0 ? stage : stages_ - 1 - stage;
  if (v_shape_) return chunk == 0 ? stage : 2 * stages_ - 1 - stage;
  return chunk * stages_ + stage;
}

StageChunk PipeRoute::at(int position, int chunk) const {
  if (two_ways_) return {chunk == 0 ? position : stages_ - 1 - position, chunk};
  return at(position);
}

StageChunk PipeRoute::at(int position) const {
  if (v_shape_)
    return position < stages_ ? StageChunk{position, 0} : StageChunk{2 * stages_ - 1 - position, 1};
  return {position % stages_, position / stages_};
}

bool PipeRoute::output_to(PipeOp::Kind kind, int stage, int chunk, StageChunk& to) const {
  if (kind == PipeOp::Kind::kWeight) return false;
  int next = position(stage, chunk) + (kind == PipeOp::Kind::kForward ? 1 : -1);
  if (next < 0 || next >= positions()) return false;
  to = at(next, chunk);
  return true;
}

bool PipeRoute::input_from(PipeOp::Kind kind, int stage, int chunk, StageChunk& from) const {
  if (kind == PipeOp::Kind::kWeight) return false;
  int previous = position(stage, chunk) + (kind == PipeOp::Kind::kForward ? -1 : 1);
  if (previous < 0 || previous >= positions()) return false;
  from = at(previous, chunk);
  return true;
}

int schedule_chunks(PipelineScheduleKind kind, int virtual_stages) {
  return is_dualpipe(kind) ? 2 : virtual_stages;
}

std::string check_schedule(PipelineScheduleKind kind, int stages, int microbatches, int chunks) {
  if (stages < 1 || microbatches < 1 || chunks < 1) return "stages, micro-batches and chunks >= 1";
  if (is_dualpipe(kind)) {
    std::string name = schedule_name(kind);
    if (chunks != 2) return "the " + name + " schedule runs two chunks per stage";
    if (stages < 2 || microbatches < 2 * stages)
      return "the " + name +
             " schedule needs at least two stages and twice as many micro-batches per replica (" +
             std::to_string(microbatches) + ") as stages (" + std::to_string(stages) + ")";
    if (kind == PipelineScheduleKind::kDualPipe && (stages % 2 != 0 || microbatches % 2 != 0))
      return "the dualpipe schedule needs an even count of stages (" + std::to_string(stages) +
             ") and of micro-batches per replica (" + std::to_string(microbatches) +
             "): half of them enter at each end";
    return "";
  }
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
  if (kind == PipelineScheduleKind::kDualPipeV) return dualpipev(stage, stages, microbatches);
  if (kind == PipelineScheduleKind::kDualPipe) return dualpipe(stage, stages, microbatches);
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
  if (is_dualpipe(kind))
    return peak_in_flight(stage_schedule(kind, stage, stages, microbatches, chunks));
  int total = microbatches * chunks;
  int warmup = warmup_forwards(kind, stage, stages, microbatches, chunks);
  return warmup < total ? warmup + 1 : total;  // the warm-up, then one more before each backward
}

int peak_in_flight(const std::vector<PipeOp>& ops) {
  // A backward whose weights' gradient runs apart frees the activations with its weight pass.
  int now = 0, peak = 0;
  for (const auto& op : ops) {
    if (op.kind == Kind::kForward) ++now;
    if (op.kind == Kind::kWeight || (op.kind == Kind::kBackward && !op.weight_apart)) --now;
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
    case PipelineScheduleKind::kDualPipeV:
      return "dualpipev";
    case PipelineScheduleKind::kDualPipe:
      return "dualpipe";
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

std::string op_name(const PipeOp& op, int chunks) {
  std::string name = std::string(pass_name(op.kind)) + " " + std::to_string(op.microbatch);
  return chunks > 1 ? name + " (chunk " + std::to_string(op.chunk) + ")" : name;
}

PipelineScheduleKind schedule_named(const std::string& name) {
  for (auto kind : {PipelineScheduleKind::kGpipe, PipelineScheduleKind::kInterleaved,
                    PipelineScheduleKind::kZeroBubble, PipelineScheduleKind::kDualPipeV,
                    PipelineScheduleKind::kDualPipe})
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
