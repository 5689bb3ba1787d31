// Pipeline schedules: the order in which one pipeline stage runs the forward and backward passes
// of its micro-batches (GPipe, 1F1B, interleaved 1F1B as Megatron-LM orders them, ZB-H1, the
// zero-bubble schedule of Qi et al. 2023 whose backward is split in two, and DeepSeek's
// DualPipeV), and where each chunk's passes send their outputs (PipeRoute). Generated once per
// stage; the analytic engine times them, the memory model counts what they keep in flight.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

struct PipeOp {
  // kBackward: the gradient of the op's inputs (and, unless `weight_apart`, of its weights);
  // kWeight: the gradient of the weights of a backward run with `weight_apart`.
  enum class Kind { kForward, kBackward, kWeight };
  Kind kind = Kind::kForward;
  int microbatch = 0;
  int chunk = 0;  // the model chunk of this stage, 0 unless interleaved, DualPipeV or DualPipe
  bool weight_apart = false;  // a backward whose weights' gradient runs later as a kWeight op
  // DualPipe's F&B: this forward and the backward after it run as one pair, both outputs sent
  // after the backward (sends_with_next) and, but for the last stage's first, both inputs taken
  // before the forward (takes_with_next).
  bool sends_with_next = false;
  bool takes_with_next = false;
  bool operator==(const PipeOp&) const = default;
};

// Where a stage's chunks sit in the model and where their passes send: the model's layers in
// positions(), position 0 holding the embedding and the last the output layer. Interleaved: chunk
// c of stage s at c x stages + s (the last stage's chunk c feeds the first stage's c + 1).
// DualPipeV: chunk 0 of stage s at s and chunk 1 at 2 stages - 1 - s (down the stages, then back
// up: the last stage passes its own chunk 0's output to its chunk 1). DualPipe: two copies of the
// model, one a direction: chunk 0 of stage s at position s of the first, chunk 1 at position
// stages - 1 - s of the second (micro-batches enter at both ends).
struct StageChunk {
  int stage = 0;
  int chunk = 0;
  bool operator==(const StageChunk&) const = default;
};
class PipeRoute {
 public:
  PipeRoute(PipelineScheduleKind kind, int stages, int chunks)
      : v_shape_(kind == PipelineScheduleKind::kDualPipeV),
        two_ways_(kind == PipelineScheduleKind::kDualPipe),
        stages_(stages),
        chunks_(chunks) {}
  // The positions the model's layers are cut into (stages x chunks; DualPipe: stages).
  int positions() const { return two_ways_ ? stages_ : stages_ * chunks_; }
  // In the copy the chunk belongs to (DualPipe: the chunk's own; else the one model).
  int position(int stage, int chunk) const;
  // REQUIRES: not DualPipe (whose positions are in two copies).
  StageChunk at(int position) const;
  // The stage and chunk that take a pass's output (a forward's to the next position, a
  // backward's to the previous): false at the model's ends and for weight passes.
  bool output_to(PipeOp::Kind kind, int stage, int chunk, StageChunk& to) const;
  // The stage and chunk whose pass gives this one its input (output_to's inverse).
  bool input_from(PipeOp::Kind kind, int stage, int chunk, StageChunk& from) const;
  bool holds_output_layer(int stage, int chunk) const {
    return position(stage, chunk) == positions() - 1;
  }
  bool holds_embedding(int stage, int chunk) const { return position(stage, chunk) == 0; }

 private:
  StageChunk at(int position, int chunk) const;  // of a chunk's copy (DualPipe)
  bool v_shape_, two_ways_;
  int stages_, chunks_;
};

// DualPipe or DualPipeV: two chunks a stage, their passes going both ways along the stages.
inline bool is_dualpipe(PipelineScheduleKind kind) {
  return kind == PipelineScheduleKind::kDualPipeV || kind == PipelineScheduleKind::kDualPipe;
}

// Whether the schedule runs some backwards' weight gradients as passes apart (zero bubble,
// DualPipeV, DualPipe).
inline bool splits_backward(PipelineScheduleKind kind) {
  return kind == PipelineScheduleKind::kZeroBubble || is_dualpipe(kind);
}

// The model chunks each stage holds: 2 under DualPipeV and DualPipe, else the plan's virtual
// stages.
int schedule_chunks(PipelineScheduleKind kind, int virtual_stages);

// The ops of `stage` (0-based, of `stages`) for `microbatches` micro-batches and `chunks` model
// chunks per stage, in the order the stage runs them: each (micro-batch, chunk) once forward and
// once backward. GPipe: every forward, then every backward. 1F1B: stages - stage - 1 forwards of
// warm-up, then one forward and one backward in turn, then the remaining backwards. Interleaved:
// Megatron's order over micro-batches in groups of `stages`, chunk by chunk. Zero bubble (ZB-H1):
// 1F1B's forwards and backwards, each backward followed by its weight pass except that stage s
// keeps s of them waiting, run after its last backward: with equal forward, backward and weight
// passes its bubble is a third of 1F1B's, and no stage holds more micro-batches than 1F1B's first.
// DualPipeV (deepseek-ai/DualPipe, dualpipev.py): its eight steps, each pair of a forward and a
// backward of different micro-batches (a pair) run one after the other, part of the
// backwards with their weight pass apart (weight_apart) and the weight passes taken in the order
// those ran. DualPipe (dualpipe.py): on each half of the stages, DualPipeV's steps for half the
// stages and half the micro-batches (each direction's), the second half's chunks swapped.
// REQUIRES: the arguments pass check_schedule.
std::vector<PipeOp> stage_schedule(PipelineScheduleKind kind, int stage, int stages,
                                   int microbatches, int chunks);

// Empty when the schedule can run these counts, else why not (interleaved needs micro-batches in
// multiples of the stages; GPipe, 1F1B and zero bubble one chunk; DualPipeV two, at least two
// stages and twice as many micro-batches as stages; DualPipe also an even count of both).
std::string check_schedule(PipelineScheduleKind kind, int stages, int microbatches, int chunks);

// The most (micro-batch, chunk) forwards whose backward (zero bubble: weight pass) has not yet
// run, at any point of `ops`: how many micro-batches' activations the stage holds at once.
int peak_in_flight(const std::vector<PipeOp>& ops);
// The same for stage_schedule(kind, stage, ...) without building it (a search asks it of
// thousands of splits).
int peak_in_flight(PipelineScheduleKind kind, int stage, int stages, int microbatches, int chunks);

const char* schedule_name(PipelineScheduleKind kind);
// "forward", "backward" or "weight": how traces and timelines name a pass.
const char* pass_name(PipeOp::Kind kind);
// An op as traces name it: its pass and micro-batch, and its chunk where a stage has several.
std::string op_name(const PipeOp& op, int chunks);
// The schedule a name gives (schedule_name's inverse; 1F1B for a name it does not know).
PipelineScheduleKind schedule_named(const std::string& name);
const char* recompute_name(Recompute recompute);

}  // namespace scaleout::core
