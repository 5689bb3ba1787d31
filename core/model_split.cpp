#include "core/model_split.hpp"

#include "core/input_error.hpp"
#include "core/parallel_state.hpp"

namespace scaleout::core {

Parallelism parallelism_of(const Plan& plan) {
  return plan.parallelism ? *plan.parallelism : Parallelism{};
}

ModelSplit model_split(const Plan& plan) { return ParallelState::of(plan).split(); }

int stage_layers(const ModelSplit& s, int stage) {
  if (stage == 0 && s.first_stage_layers > 0) return s.first_stage_layers;
  if (stage == s.pipeline - 1 && s.last_stage_layers > 0) return s.last_stage_layers;
  return s.layers_per_chunk;
}

void refuse_model_parallel(const Plan& plan, const std::string& what) {
  if (!plan.parallelism) return;
  throw InputError(plan.file, plan.parallelism->line, "parallelism",
                   what +
                       " runs data-parallel plans only so far; a plan with parallelism: runs in "
                       "the closed forms, on SimGrid and on CPUs over Gloo (scaleout run)");
}

}  // namespace scaleout::core
