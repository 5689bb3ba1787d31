#include "core/parallel/model_split.hpp"

#include <algorithm>

#include "core/parallel/parallel_state.hpp"
#include "core/plan/input_error.hpp"

namespace scaleout::core {

Parallelism parallelism_of(const Plan& plan) {
  return plan.parallelism ? *plan.parallelism : Parallelism{};
}

ModelSplit model_split(const Plan& plan) { return ParallelState::of(plan).split(); }

ModelSplit gradient_split(const ModelSplit& s) {
  ModelSplit g = s;
  if (s.schedule == PipelineScheduleKind::kDualPipe) g.data *= 2;
  return g;
}

int chunk_layers(const ModelSplit& s, int stage, int chunk) {
  int layers = s.layers_per_chunk;
  if (stage == 0 && s.first_stage_layers > 0) layers = s.first_stage_layers;
  if (stage == s.pipeline - 1 && s.last_stage_layers > 0) layers = s.last_stage_layers;
  if (stage == 0 && chunk == 0) layers -= s.embedding_layers;
  if (stage == s.pipeline - 1 && chunk == s.chunks - 1) layers -= s.loss_layers;
  return layers;
}

int stage_layers(const ModelSplit& s, int stage) {
  int layers = 0;
  for (int chunk = 0; chunk < s.chunks; ++chunk) layers += chunk_layers(s, stage, chunk);
  return layers;
}

int widest_chunk_layers(const ModelSplit& s, int stage) {
  int widest = 0;
  for (int chunk = 0; chunk < s.chunks; ++chunk)
    widest = std::max(widest, chunk_layers(s, stage, chunk));
  return widest;
}

bool chunks_alike(const ModelSplit& s, int stage) {
  return stage_layers(s, stage) == s.chunks * chunk_layers(s, stage, 0);
}

bool stages_differ(const ModelSplit& s) {
  return s.first_stage_layers + s.last_stage_layers + s.embedding_layers + s.loss_layers > 0;
}

void refuse_model_parallel(const Plan& plan, const std::string& what) {
  if (!plan.parallelism) return;
  throw InputError(plan.file, plan.parallelism->line, "parallelism",
                   what +
                       " runs data-parallel plans only so far; a plan with parallelism: runs in "
                       "the closed forms, on SimGrid and on CPUs over Gloo (scaleout run)");
}

}  // namespace scaleout::core
