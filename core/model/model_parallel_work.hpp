// The work of one device of a model-parallel plan, per micro-batch and chunk layer: what every
// engine charges (the analytic engine divides it by rates; the training program runs it on a
// fabric). FLOPs are effective FLOPs (divided by the achieved efficiency, as the fabric's
// compute() takes them); sizes are bytes.
#pragma once

#include <vector>

#include "core/parallel/model_split.hpp"
#include "core/parallel/parallel_state.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::core {

inline constexpr double kActivationBytes = 2;  // 16-bit activations between devices

struct ModelParallelWork {
  double layer_forward_flops = 0;   // one layer, one micro-batch, one device of the tensor group
  double layer_backward_flops = 0;  // with what recomputation adds
  double logit_forward_flops = 0;   // the output layer (last stage, last chunk); backward 2x
  // Of layer_backward_flops: the weights' gradients, which schedule: zero_bubble runs as ops of
  // their own (the rest, the inputs' gradients and any recomputation, stays in backward).
  double layer_weight_flops = 0;
  double activation_bytes = 0;  // b s h x 2: a tensor all-reduce's and a stage transfer's size
  int tensor_allreduces_forward = 2;   // per layer (Megatron: after attention, after the MLP)
  int tensor_allreduces_backward = 2;  // + 2 when full recomputation runs the forward again
  double gradient_bytes = 0;  // the data group's exchange per device: the worst stage's shard
  // The step-end exchange's share of an all-reduce of gradient_bytes: 1 below ZeRO-2 (an
  // all-reduce, or ZeRO-1's reduce-scatter and all-gather); ZeRO-2's parameter all-gather, 0.5;
  // none with ZeRO-3.
  double data_volume = 1;
  // ZeRO-2 and ZeRO-3 as DeepSpeed and FSDP run them, per micro-batch over the data group (ring
  // collectives, as NCCL runs them): one layer's parameters of the device (the worst stage's
  // parameters over its layers, at gradient precision) are what a gather collects and a
  // reduce-scatter reduces. ZeRO-3 gathers them before each layer's forward and again before its
  // backward (DeepSpeed also for a recomputed forward; FSDP keeps them through it), the next
  // layer's while this one computes; from ZeRO-2 on each layer's gradients are reduce-scattered
  // while the next layer's backward runs.
  double layer_shard_bytes = 0;
  int gathers_forward = 0;   // per layer and micro-batch
  int gathers_backward = 0;  // per layer and micro-batch
  bool reduce_per_microbatch = false;
  // The optimizer's update of the rank's parameters (its 1/data shard from ZeRO-1 on) once the
  // exchange is done, the worst stage's; charged only where compute comes from the device's
  // figures (an `efficiency` stands for everything the step does).
  double optimizer_flops = 0;
  // Expert parallelism (parallelism.expert > 1): each MoE layer's dispatch of its tokens to their
  // experts and the combine back, all-to-all over the expert-parallel group, forward and backward
  // (twice more when full recomputation runs the forward again); and the experts' gradients,
  // exchanged over their own data group instead of with the rest. A chunk's MoE layers are
  // chunk_moe_layers(split, stage, chunk) (core/parallel/model_split.hpp).
  // What one device sends in one all-to-all (all of its peers'): to the experts (the dispatch,
  // and backward the combine's gradient), and back from them.
  double dispatch_bytes = 0;
  double combine_bytes = 0;
  int alltoalls_forward = 2;  // per MoE layer
  int alltoalls_backward = 2;
  // Of a MoE layer's compute, the MLP block's share (its FLOPs' share, moe_mlp_share): what the
  // pairs of DualPipe's schedules run beside the other pass's all-to-alls
  // (core/model/pair_overlap).
  double moe_mlp_share = 0;
  double expert_gradient_bytes = 0;  // the device's experts' shard of the worst stage
  // Megatron-Core's --overlap-grad-reduce (core/programs/gradient_buckets.hpp), with a data group
  // of two or more: gradient_bytes exchanged in buckets of at least bucket_bytes during backward
  // (with ZeRO-1, reduce-scattered; the parameters' all-gather follows the schedule).
  bool overlap_grad_reduce = false;
  double bucket_bytes = 0;
  // Megatron-Core's --overlap-param-gather with ZeRO-1: the parameters' all-gather in the same
  // buckets during each chunk's first forward instead of after the schedule.
  bool overlap_param_gather = false;
  // Megatron-Core's --tp-comm-overlap with a tensor group of two or more: a layer's tensor
  // collectives in `tensor` chunks, the first before its compute, the rest beside it.
  bool tp_comm_overlap = false;
  // Context parallelism (parallelism.context > 1): a device holds 1/context of each sequence (the
  // layer's FLOPs and activation_bytes above are its share). Each layer's attention needs every
  // rank's keys and values: passed around the group's ring beside the attention's compute, a
  // block a step (context_ring), or all-gathered before it; backward passes each block with its
  // gradient (twice the bytes) or all-gathers them and reduce-scatters their gradient. A
  // recomputed attention (full or selective recomputation) exchanges as forward again first.
  int context = 1;
  bool context_ring = true;
  double context_block_bytes = 0;             // one device's keys and values of one layer
  double layer_attention_forward_flops = 0;   // the attention's share of layer_forward_flops
  double layer_attention_backward_flops = 0;  // of layer_backward_flops, without recomputation
  bool context_recomputed = false;
};

// REQUIRES: a validated plan with `parallelism:`; `s` is its model_split(plan) (the overload
// without one works it out).
ModelParallelWork model_parallel_work(const Plan& plan);
ModelParallelWork model_parallel_work(const Plan& plan, const ModelSplit& s);

// Seconds of one forward or backward of `layers` layers with ZeRO's per-layer collectives, as
// the training program runs them: the first layer's gathers, then each layer's compute beside the
// next layer's gathers and the last layer's reduce-scatter, its tensor collectives after it, and
// the last layer's reduce-scatter at the end. `compute`, `tensor`: one layer's; `gather`: its
// gathers; `reduce`: its reduce-scatter (0 where none); `slowdown`: the device's
// overlap_slowdown, which the collectives beside a layer's compute slow it by
// (core/model/overlap_slowdown.hpp).
double sharded_layers_seconds(int layers, double compute, double tensor, double gather,
                              double reduce, double slowdown);

// DeepSpeed's pipeline engine (parallelism.framework: deepspeed) sends each stage's output whole
// from every rank of a tensor group (no scatter-gather) and waits for each send before its next
// instruction (deepspeed/runtime/pipe/engine.py: a blocking p2p send); Megatron-LM sends 1/t from
// each rank and goes on while its sends fly.
bool blocking_stage_transfers(const Plan& plan);
// The parts a micro-batch's activations are cut into, one sent by each rank of a tensor group: t,
// or 1 (DeepSpeed: each rank sends them whole).
int transfer_parts(const Plan& plan, int tensor);

// Seconds from the end of an op to its micro-batch's activations (`bytes`: activation_bytes)
// arriving across the boundary after each stage, by stage (all 0 with one stage). Between nodes, a
// node's share of the stage's tensor groups send at once through its NICs; inside a node each
// rank sends its 1/t share over its own link. `state` is ParallelState::of(plan).
std::vector<double> stage_transfers(const Plan& plan, const ParallelState& state, double bytes);

// Seconds of stage transfers in flight per iteration on a stage (a result's pipeline_comm_s):
// every forward and backward sends one, at the mean of the boundaries' transfer times
// (`transfer`: stage_transfers).
double pipeline_transfers(const ParallelState& state, const std::vector<double>& transfer);

// The plan as `workers` ranks that only exchange a gradient with `kind`: what a tensor or data
// group's collective runs as (no parallelism, stragglers or failures; a torus grid chosen anew).
Plan group_plan(const Plan& plan, int workers, StrategyKind kind);

}  // namespace scaleout::core
