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

namespace {

// The layers of the model's position `position` under DualPipe or DualPipeV.
int dualpipe_position_layers(const ModelSplit& s, int position) {
  if (position == 0 && s.first_stage_layers > 0) return s.first_stage_layers;
  if (position == s.route().positions() - 1 && s.last_stage_layers > 0) return s.last_stage_layers;
  return s.layers_per_chunk;
}

// The layers in [0, end) whose MLP is a mixture of experts.
int moe_layers_before(const ModelSplit& s, int end) {
  if (s.moe_every == 0) return 0;
  int first = (s.moe_first_dense + s.moe_every - 1) / s.moe_every * s.moe_every;
  return end <= first ? 0 : (end - first + s.moe_every - 1) / s.moe_every;
}

}  // namespace

int chunk_layers(const ModelSplit& s, int stage, int chunk) {
  if (is_dualpipe(s.schedule)) return dualpipe_position_layers(s, s.route().position(stage, chunk));
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

int chunk_first_layer(const ModelSplit& s, int stage, int chunk) {
  PipeRoute route = s.route();
  int position = route.position(stage, chunk), first = 0;
  for (int p = 0; p < position; ++p) {
    if (is_dualpipe(s.schedule)) {
      first += dualpipe_position_layers(s, p);
      continue;
    }
    StageChunk at = route.at(p);
    first += chunk_layers(s, at.stage, at.chunk);
  }
  return first;
}

int chunk_moe_layers(const ModelSplit& s, int stage, int chunk) {
  if (s.moe_every == 0) return 0;
  int first = chunk_first_layer(s, stage, chunk);
  return moe_layers_before(s, first + chunk_layers(s, stage, chunk)) - moe_layers_before(s, first);
}

int stage_moe_layers(const ModelSplit& s, int stage) {
  int layers = 0;
  for (int chunk = 0; chunk < s.chunks; ++chunk) layers += chunk_moe_layers(s, stage, chunk);
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
  return s.first_stage_layers + s.last_stage_layers + s.embedding_layers + s.loss_layers > 0 ||
         layer_kinds_differ(s);
}

bool layer_kinds_differ(const ModelSplit& s) {
  if (s.moe_every == 0) return false;
  long long layers = 0, moe = 0;
  for (int stage = 0; stage < s.pipeline; ++stage) {
    layers += stage_layers(s, stage);
    moe += stage_moe_layers(s, stage);
  }
  for (int stage = 0; stage < s.pipeline; ++stage)
    for (int chunk = 0; chunk < s.chunks; ++chunk)
      if (chunk_moe_layers(s, stage, chunk) * layers != chunk_layers(s, stage, chunk) * moe)
        return true;
  return false;
}

void refuse_model_parallel(const Plan& plan, const std::string& what) {
  if (!plan.parallelism) return;
  throw InputError(plan.file, plan.parallelism->line, "parallelism",
                   what +
                       " runs data-parallel plans only so far; a plan with parallelism: runs in "
                       "the closed forms, on SimGrid and on CPUs over Gloo (scaleout run)");
}

}  // namespace scaleout::core
