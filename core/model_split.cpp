#include "core/model_split.hpp"

#include "core/input_error.hpp"

namespace scaleout::core {

Parallelism parallelism_of(const Plan& plan) {
  return plan.parallelism ? *plan.parallelism : Parallelism{};
}

ModelSplit model_split(const Plan& plan) {
  Parallelism par = parallelism_of(plan);
  ModelSplit s;
  s.tensor = par.tensor;
  s.pipeline = par.pipeline;
  s.data = plan.training.workers / (par.tensor * par.pipeline);
  s.microbatch = par.microbatch;
  s.global_batch = plan.training.global_batch > 0 ? plan.training.global_batch
                                                  : plan.training.batch_per_worker * s.data;
  s.microbatches = s.global_batch / (s.data * s.microbatch);
  s.chunks = par.virtual_stages;
  s.layers_per_chunk = plan.workload.transformer->layers / (par.pipeline * par.virtual_stages);
  return s;
}

void refuse_model_parallel(const Plan& plan, const std::string& what) {
  if (!plan.parallelism) return;
  throw InputError(plan.file, plan.parallelism->line, "parallelism",
                   what +
                       " runs data-parallel plans only so far; a plan with parallelism: runs in "
                       "the closed forms, on SimGrid and on CPUs over Gloo (scaleout run)");
}

}  // namespace scaleout::core
