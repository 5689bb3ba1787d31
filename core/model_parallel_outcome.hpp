// One result for a model-parallel run from the parts of its step, whichever engine measured or
// predicted them: the split, tokens/s, model FLOPs and MFU, the phases and the worst stage's
// memory, so that every engine derives them alike.
#pragma once

#include <string>

#include "core/plan.hpp"
#include "core/result.hpp"

namespace scaleout::core {

// Seconds of one iteration, on the busiest stage.
struct ModelParallelPhases {
  double step = 0;        // the iteration: pipeline and data exchange
  double compute = 0;     // the busiest stage's layers
  double tensor = 0;      // its tensor all-reduces
  double bubble = 0;      // its idle time inside the pipeline
  double pipeline = 0;    // stage transfers in flight, summed
  double data = 0;        // the data group's exchange
  double data_bytes = 0;  // what one device exchanges in it
};

// REQUIRES: a validated plan with `parallelism:`. Lists min(steps, 1000) steps of `phases.step`.
RunResult model_parallel_result(const Plan& plan, const std::string& engine,
                                const ModelParallelPhases& phases);

}  // namespace scaleout::core
