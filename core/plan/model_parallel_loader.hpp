// Reading the model-parallel parts of a plan: a workload's `transformer:`, the plan's
// `parallelism:` and the checks that span them (validate_model_parallel).
#pragma once

#include <optional>

#include "core/plan/plan.hpp"
#include "core/plan/yaml_reader.hpp"

namespace scaleout::core {

// Reads `transformer:` when the workload has one; then parameters and flops_per_sample are
// derived (and, where also given, must agree with the derived values within 1%).
// Returns false when the workload has no transformer (parameters and FLOPs are then required).
bool read_transformer(YamlMap& workload, Workload& w);

// Reads the plan's `parallelism:`; nullopt when absent.
std::optional<Parallelism> read_parallelism(YamlMap& plan);

// Sets batch_per_worker from training.global_batch (over the data-parallel degree), once the
// command line's worker count is known; throws InputError when it does not divide. With
// `split_searched` (PlanOverrides) a written split that does not divide the workers leaves the
// batch to training.global_batch, and without one throws InputError.
void apply_global_batch(Plan& plan, bool split_searched = false);

// The checks of a model-parallel plan (see the function's comments); nothing without
// `parallelism:`. With `split_searched` only those that hold for any split of the plan.
void validate_model_parallel(const Plan& plan, bool split_searched = false);

}  // namespace scaleout::core
