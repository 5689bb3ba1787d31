// The analytic engine for model-parallel plans: the pipeline schedule timed in closed form
// (analytic/pipeline_timing.hpp) with each chunk's compute and its tensor group's all-reduces, the
// transfers between stages, the MoE layers' all-to-alls over the expert-parallel group, then the
// data group's gradient exchange with the plan's strategy (and the experts' over their own group)
// (after the pipeline has drained, as Megatron-LM does by default). ZeRO-2 and ZeRO-3 gather and
// reduce-scatter a layer at a time each micro-batch instead, beside the compute.
#pragma once

#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "analytic/gradient_overlap.hpp"
#include "analytic/pipeline_timing.hpp"
#include "core/model/model_parallel_work.hpp"
#include "core/model/pair_overlap.hpp"
#include "core/parallel/parallel_state.hpp"
#include "core/plan/plan.hpp"
#include "core/results/result.hpp"

namespace scaleout::sim {

// The costs the closed form uses, each in seconds, for one micro-batch.
struct ModelParallelCosts {
  double layer_forward_compute = 0;   // one layer's forward on one device
  double layer_backward_compute = 0;  // its backward (with any recomputation)
  // schedule: zero_bubble: of layer_backward_compute, the weights' gradients, run as an op apart
  // (0 for every other schedule).
  double layer_weight_compute = 0;
  double layer_tensor_forward = 0;   // the layer's tensor-group collectives in its forward
  double layer_tensor_backward = 0;  // and in its backward (with a recomputed forward's)
  // tp_comm_overlap: the tensor chunks that run beside the layer's compute (the two above are
  // then what is exposed of all of them).
  double layer_tensor_beside_forward = 0;
  double layer_tensor_beside_backward = 0;
  double logit_forward = 0;      // the output layer, last stage
  std::vector<double> transfer;  // activations (or their gradient) across each boundary
  double data_exchange = 0;      // the data group's gradient exchange, once per iteration
  double data_bytes = 0;         // the gradient bytes one device exchanges in it
  double optimizer = 0;          // the optimizer's update after it (device figures only)
  // A MoE layer's all-to-alls in its forward and in its backward (a chunk's are its
  // core::chunk_moe_layers times these; chunk_expert gives them).
  double moe_layer_expert_forward = 0;
  double moe_layer_expert_backward = 0;
  // Context parallelism (core::ModelParallelWork): a layer's attention compute, which runs first
  // beside the context group's key-value exchanges (the compute above includes it), and what of
  // those exchanges it leaves exposed, forward and backward.
  double layer_attention_forward = 0;
  double layer_attention_backward = 0;
  double layer_context_forward = 0;
  double layer_context_backward = 0;
  // ZeRO-2 and ZeRO-3 (core::ModelParallelWork): one layer's gathers before its forward and its
  // backward, and its reduce-scatter after its backward, ring collectives over the data group.
  double layer_gather_forward = 0;
  double layer_gather_backward = 0;
  double layer_reduce = 0;
  // The device's overlap_slowdown: collectives beside a layer's compute slow it
  // (core/model/overlap_slowdown.hpp).
  double overlap_slowdown = 0;
  // overlap_grad_reduce: what the buckets' exchanges add to the ops that run beside them and
  // after the schedule, by stage (empty without it; data_exchange is then what follows them).
  GradientOverlap overlap;
  // DeepSpeed's pipeline engine: a stage waits for each of its sends (core::
  // blocking_stage_transfers), so a transfer lengthens the op that sends it.
  bool blocking_transfers = false;
  // DualPipe's overlapped F&B pairs (core/model/pair_overlap.hpp): the work their slots compute
  // (absent: a pair runs one op after the other), at the device's peak, beside all-to-alls of
  // `alltoall` seconds each way.
  std::optional<core::ModelParallelWork> pair_work;
  double peak = 0;
  core::AllToAllSeconds alltoall;
};

// The all-to-alls of chunk `chunk` of `stage` in a forward and a backward.
double chunk_expert(const core::ModelSplit& s, const ModelParallelCosts& c, int stage, int chunk);

// Seconds a stage waits on its own sends each micro-batch (0 unless blocking_transfers).
double blocked_sending(const core::ModelSplit& s, const ModelParallelCosts& c, int stage);

// The groups' collective times by size, for many predictions of one cluster and strategy (a
// search over splits): each is computed once.
struct GroupTimes {
  std::map<std::pair<int, double>, double> tensor;      // (tensor, bytes)
  std::map<std::tuple<int, int, double>, double> data;  // (data, tensor, bytes)
  std::map<std::tuple<int, int, double>, double> ring;  // the same, all-gathered by a ring
};

// REQUIRES: a validated plan with `parallelism:`; `state` is ParallelState::of(plan) (each
// function below takes the same one). `cache`: may be null.
ModelParallelCosts model_parallel_costs(const core::Plan& plan, const core::ParallelState& state,
                                        GroupTimes* cache = nullptr);

// The pipeline's costs by stage and chunk from those of one layer.
PipeCosts pipe_costs(const core::ParallelState& state, const ModelParallelCosts& c);

// The plan's pipeline schedule timed with those costs: each stage's ops with their start and end.
PipeTiming time_plan_pipeline(const core::Plan& plan, const core::ParallelState& state,
                              const ModelParallelCosts& c);

// Predicts a model-parallel plan. Throws core::InputError naming the stage and each memory term
// when the plan does not fit the device's memory.
core::RunResult predict_model_parallel(const core::Plan& plan, GroupTimes* cache = nullptr);

}  // namespace scaleout::sim
