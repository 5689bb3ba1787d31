// Pipeline schedules: the order in which one pipeline stage runs the forward and backward passes
// of its micro-batches (GPipe, 1F1B, interleaved 1F1B as Megatron-LM orders them). Generated once
// per stage; the analytic engine times them, the memory model counts what they keep in flight.
#pragma once

#include <string>
#include <vector>

#include "core/plan.hpp"

namespace scaleout::core {

struct PipeOp {
  enum class Kind { kForward, kBackward };
  Kind kind = Kind::kForward;
  int microbatch = 0;
  int chunk = 0;  // the model chunk (virtual stage) of this stage, 0 unless interleaved
  bool operator==(const PipeOp&) const = default;
};

// The ops of `stage` (0-based, of `stages`) for `microbatches` micro-batches and `chunks` model
// chunks per stage, in the order the stage runs them: each (micro-batch, chunk) once forward and
// once backward. GPipe: every forward, then every backward. 1F1B: stages - stage - 1 forwards of
// warm-up, then one forward and one backward in turn, then the remaining backwards. Interleaved:
// Megatron's order over micro-batches in groups of `stages`, chunk by chunk.
// REQUIRES: the arguments pass check_schedule.
std::vector<PipeOp> stage_schedule(PipelineScheduleKind kind, int stage, int stages,
                                   int microbatches, int chunks);

// Empty when the schedule can run these counts, else why not (interleaved needs micro-batches in
// multiples of the stages; GPipe and 1F1B one chunk).
std::string check_schedule(PipelineScheduleKind kind, int stages, int microbatches, int chunks);

// The most (micro-batch, chunk) forwards whose backward has not yet run, at any point of `ops`:
// how many micro-batches' activations the stage holds at once.
int peak_in_flight(const std::vector<PipeOp>& ops);
// The same for stage_schedule(kind, stage, ...) without building it (a search asks it of
// thousands of splits).
int peak_in_flight(PipelineScheduleKind kind, int stage, int stages, int microbatches, int chunks);

const char* schedule_name(PipelineScheduleKind kind);
const char* recompute_name(Recompute recompute);

}  // namespace scaleout::core
