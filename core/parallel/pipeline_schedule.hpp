// Pipeline schedules: the order in which one pipeline stage runs the forward and backward passes
// of its micro-batches (GPipe, 1F1B, interleaved 1F1B as Megatron-LM orders them, and ZB-H1, the
// zero-bubble schedule of Qi et al. 2023 whose backward is split in two). Generated once per
// stage; the analytic engine times them, the memory model counts what they keep in flight.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

struct PipeOp {
  // kBackward: the gradient of the op's inputs (and, outside the zero-bubble schedule, of its
  // weights); kWeight: the zero-bubble schedule's gradient of the weights, run apart.
  enum class Kind { kForward, kBackward, kWeight };
  Kind kind = Kind::kForward;
  int microbatch = 0;
  int chunk = 0;  // the model chunk (virtual stage) of this stage, 0 unless interleaved
  bool operator==(const PipeOp&) const = default;
};

// The ops of `stage` (0-based, of `stages`) for `microbatches` micro-batches and `chunks` model
// chunks per stage, in the order the stage runs them: each (micro-batch, chunk) once forward and
// once backward. GPipe: every forward, then every backward. 1F1B: stages - stage - 1 forwards of
// warm-up, then one forward and one backward in turn, then the remaining backwards. Interleaved:
// Megatron's order over micro-batches in groups of `stages`, chunk by chunk. Zero bubble (ZB-H1):
// 1F1B's forwards and backwards, each backward followed by its weight pass except that stage s
// keeps s of them waiting, run after its last backward: with equal forward, backward and weight
// passes its bubble is a third of 1F1B's, and no stage holds more micro-batches than 1F1B's first.
// REQUIRES: the arguments pass check_schedule.
std::vector<PipeOp> stage_schedule(PipelineScheduleKind kind, int stage, int stages,
                                   int microbatches, int chunks);

// Empty when the schedule can run these counts, else why not (interleaved needs micro-batches in
// multiples of the stages; GPipe, 1F1B and zero bubble one chunk).
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
// The schedule a name gives (schedule_name's inverse; 1F1B for a name it does not know).
PipelineScheduleKind schedule_named(const std::string& name);
const char* recompute_name(Recompute recompute);

}  // namespace scaleout::core
