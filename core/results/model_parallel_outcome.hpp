// One result for a model-parallel run from the parts of its step, whichever engine measured or
// predicted them: the split, tokens/s, model FLOPs and MFU, the phases and the worst stage's
// memory, so that every engine derives them alike.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/programs/strategies/model_parallel_training.hpp"
#include "core/results/result.hpp"

namespace scaleout::core {

// Seconds of one iteration, on the busiest stage.
struct ModelParallelPhases {
  double step = 0;        // the iteration: pipeline and data exchange
  double compute = 0;     // the busiest stage's layers
  double tensor = 0;      // its tensor all-reduces
  double expert = 0;      // its expert-parallel all-to-alls
  double context = 0;     // its context group's exposed key-value exchanges
  double bubble = 0;      // its idle time inside the pipeline
  double pipeline = 0;    // stage transfers in flight, summed
  double data = 0;        // the data group's exchange
  double data_bytes = 0;  // what one device exchanges in it
};

// The parts of a simulated or measured iteration from every rank's records ([rank][step]): the
// busiest rank's (most compute and tensor time) compute, tensor and data seconds averaged over
// the steps, and the bubble as the rest of `step`. Pipeline transfers and bytes are left at 0.
ModelParallelPhases phases_from_records(
    const std::vector<std::vector<ModelParallelStepTimes>>& records, double step);

// REQUIRES: a validated plan with `parallelism:`. Lists min(steps, 1000) steps of `phases.step`.
RunResult model_parallel_result(const Plan& plan, const std::string& engine,
                                const ModelParallelPhases& phases);

}  // namespace scaleout::core
