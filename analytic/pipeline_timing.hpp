// Times a pipeline schedule in closed form: each stage runs its ops
// (core/parallel/pipeline_schedule.hpp) in order, an op starting once the stage is free and its
// input has arrived (a forward needs the previous stage's forward of that micro-batch and chunk, a
// backward the next stage's backward, a zero-bubble weight pass its own backward), each hop between
// stages taking a fixed transfer time that does not hold the stage up. With free transfers and
// equal stages, GPipe and 1F1B take (m + p - 1)(f + b).
#pragma once

#include <functional>
#include <vector>

#include "core/parallel/pipeline_schedule.hpp"

namespace scaleout::sim {

struct PipeCosts {
  // Seconds of one forward and one backward of one micro-batch through one chunk, by stage and
  // chunk: [stage][chunk].
  std::vector<std::vector<double>> forward;
  std::vector<std::vector<double>> backward;
  // Of the weight passes that zero bubble and DualPipeV run apart, likewise (empty: the schedule
  // has none); a backward not split (PipeOp::weight_apart false) runs its weight pass within.
  std::vector<std::vector<double>> weight;
  // Seconds from the end of an op to its input's arrival across the boundary after stage s
  // (between s and s + 1; the last: from the last stage round to the first), by s.
  std::vector<double> transfer;
  // Seconds added to single ops, by stage and place in its schedule: [stage][op] (empty: none).
  std::vector<std::vector<double>> op_extra;
  // Seconds of an F&B pair (its first op: the forward) run overlapped on `stage`, negative where
  // it runs one op after the other (empty: every pair does). DualPipe's overlap of a pair's
  // all-to-alls (core/model/pair_overlap.hpp).
  std::function<double(int stage, const core::PipeOp& forward, const core::PipeOp& backward)> pair;
};

struct TimedOp {
  core::PipeOp op;
  double start = 0;
  double end = 0;
};

struct PipeTiming {
  double iteration = 0;                      // the last op's end
  std::vector<double> busy;                  // per stage: seconds its ops ran
  std::vector<double> hidden;                // per stage: seconds its overlapped pairs saved
  std::vector<std::vector<TimedOp>> stages;  // per stage, in schedule order
};

// REQUIRES: the counts pass core::check_schedule; costs sized [stages][chunks].
// Throws std::logic_error if the schedule deadlocks (a schedule bug, never the user's input).
PipeTiming time_pipeline(core::PipelineScheduleKind kind, int stages, int microbatches, int chunks,
                         const PipeCosts& costs);

// Equal costs on every stage and chunk.
PipeCosts uniform_costs(int stages, int chunks, double forward, double backward, double transfer);

}  // namespace scaleout::sim
