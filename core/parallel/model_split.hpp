// How a model-parallel plan divides the model and the batch: the degrees, the micro-batches each
// replica runs per iteration and the layers each stage (and each of its chunks) holds.
#pragma once

#include <string>

#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::core {

struct ModelSplit {
  int tensor = 1;
  int pipeline = 1;
  // The ranks that exchange a stage's (dense) gradient: workers / (tensor x pipeline), context x
  // expert x Megatron's data-parallel degree.
  int data = 1;
  int context = 1;       // ranks that split each sequence (they share its micro-batches)
  int microbatch = 1;    // sequences per micro-batch
  int microbatches = 1;  // per replica per iteration: global batch / (replicas x microbatch)
  int chunks = 1;        // model chunks per stage (virtual stages; DualPipeV's two)
  PipelineScheduleKind schedule = PipelineScheduleKind::kOneFOneB;
  // Layers a chunk: with uneven stages, a chunk of the stages between the first and the last; with
  // the embedding and the loss counted as layers, the share of each chunk, those two included.
  int layers_per_chunk = 0;
  int global_batch = 0;  // sequences per iteration
  // Uneven stages: a chunk's layers on the first and the last stage (0: layers_per_chunk).
  int first_stage_layers = 0, last_stage_layers = 0;
  // The embedding and the loss counted as layers (Megatron-Core's account-for flags): the first
  // stage's first chunk holds `embedding_layers` fewer, the last stage's last `loss_layers` fewer.
  int embedding_layers = 0, loss_layers = 0;
  // The model's mixture-of-experts layers: those from moe_first_dense on whose index moe_every
  // divides (moe_every 0: none), so that each chunk's MoE layers follow from where it sits.
  int moe_every = 0, moe_first_dense = 0;
  // Replicas that take different sequences: Megatron's data-parallel degree (data / context).
  int replicas() const { return data / context; }
  // The micro-batches each chunk of a stage runs an iteration: all, or DualPipe's half (one
  // direction's).
  int chunk_microbatches() const {
    return schedule == PipelineScheduleKind::kDualPipe ? microbatches / 2 : microbatches;
  }
  // Where each stage's chunks sit in the model and send their passes' outputs.
  PipeRoute route() const { return {schedule, pipeline, chunks}; }
};

// The split as the ranks that sum a gradient see it: under DualPipe a stage's mirror holds the same
// parameters, so its data group joins (data doubled); else `s`.
ModelSplit gradient_split(const ModelSplit& s);

// Layers of chunk `chunk` of `stage`: layers_per_chunk, the first or last stage's own count, less
// the embedding or the loss where they are counted as layers. Under DualPipe and DualPipeV the
// first and last stages' counts are those of the model's first and last positions (DualPipeV's
// first stage holds both; DualPipe's first and last stages each hold one of each copy).
int chunk_layers(const ModelSplit& s, int stage, int chunk);

// The model's index of the first layer of chunk `chunk` of `stage` (in its own copy, DualPipe's).
int chunk_first_layer(const ModelSplit& s, int stage, int chunk);

// The MoE layers of chunk `chunk` of `stage`, and of all of `stage`'s chunks.
int chunk_moe_layers(const ModelSplit& s, int stage, int chunk);
int stage_moe_layers(const ModelSplit& s, int stage);

// Layers of all of `stage`'s chunks together.
int stage_layers(const ModelSplit& s, int stage);

// The most layers any chunk of `stage` holds (what one micro-batch in flight keeps at most).
int widest_chunk_layers(const ModelSplit& s, int stage);

// Whether some stages or chunks hold other layers than the rest (uneven stages, the embedding or
// the loss counted as layers, or other shares of MoE layers: layer_kinds_differ).
bool stages_differ(const ModelSplit& s);

// Whether some chunk's share of MoE layers differs from the model's (each layer's compute is the
// model's mean layer's, so such a chunk's compute is approximate).
bool layer_kinds_differ(const ModelSplit& s);

// Whether every chunk of `stage` holds the same layers.
bool chunks_alike(const ModelSplit& s, int stage);

// ParallelState::of(plan).split() (core/parallel/parallel_state.hpp), for a caller that needs only
// these numbers once; a caller that needs them again, or the ranks' groups, keeps a ParallelState.
// REQUIRES: a validated plan (layers_per_chunk is 0 without a transformer).
ModelSplit model_split(const Plan& plan);

// The plan's parallelism, or the trivial one (everything 1) for a data-parallel plan.
Parallelism parallelism_of(const Plan& plan);

// Throws InputError (at `parallelism:`) for an engine or command that runs data-parallel plans
// only, named by `what` ("the SimGrid engine"); nothing for a data-parallel plan.
void refuse_model_parallel(const Plan& plan, const std::string& what);

}  // namespace scaleout::core
