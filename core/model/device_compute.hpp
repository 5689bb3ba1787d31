// Compute from the device's own figures (docs/compute-model.md): every kernel of a transformer
// layer timed on the device's peak, multiprocessors and memory bandwidth, so that the share of
// peak a model reaches comes out of its shapes instead of one `efficiency`.
//
// A matrix product runs as output tiles (the BLAS's tile, matmul_tile) spread over the
// multiprocessors in waves; each tile takes its 2 x rows x cols x k FLOPs at the device's measured
// matrix-product ceiling (matmul_ceiling x peak / multiprocessors), so a product whose tiles fill
// the last wave partly, or whose edges fill a tile partly, pays for the whole tile (tile and wave
// quantization). A product that moves more bytes than it can compute on (a thin k) runs at the
// memory's bandwidth instead. The element-wise kernels (layer norms, bias-dropout-residual,
// GeLU or SwiGLU, the attention's softmax and dropout, the loss, the addition of each
// micro-batch's weight gradients into 32-bit buffers) run at the memory's bandwidth: the
// datasheet's times the device's measured memory_ceiling where it has one. Every kernel adds the
// device's kernel_gap.
//
// The kernels are those of Megatron-LM's GPT layer with its fused kernels (bias-GeLU, scale-mask-
// softmax, bias-dropout-add) and dropout: the layer norms and the residual path run on every
// device of a tensor group over the whole hidden width, unless the plan splits the sequence
// (sequence_parallel).
#pragma once

#include "core/model/transformer_products.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::core {

// Seconds of one matrix product (tiles, waves, ceiling, or bandwidth) plus one kernel gap.
double matmul_seconds(const DeviceSpec& d, const MatrixProduct& p);

// Seconds of `kernels` element-wise kernels moving `bytes` in all.
double streaming_seconds(const DeviceSpec& d, double bytes, int kernels);

// One transformer layer on one device of a tensor group of `tensor`, for a micro-batch of
// `microbatch` sequences; `sequence_split` (the tensor degree under sequence parallelism) splits
// the residual stream's kernels (layer norms, dropout, residual adds) over the group.
struct LayerSeconds {
  double forward = 0;
  double backward = 0;  // the gradients of inputs and weights (accumulated), no recomputation
  double attention_forward = 0;   // the s x s part of forward (selective recomputation redoes)
  double attention_backward = 0;  // and of backward
  // Of backward: the weights' gradients (the products dB = A^T dC and their accumulation into
  // 32-bit buffers), which the zero-bubble schedule runs apart.
  double weight_backward = 0;
  // Of forward: what each of selective recomputation's other modules runs again in backward
  // (RecomputeModules): the two norms, latent attention's up projections, the routed experts'
  // activation, a dense layer's MLP, the shared experts.
  double norms = 0, up_projections = 0, expert_activation = 0, dense_mlp = 0, shared_experts = 0;
};

// The seconds selective recomputation adds to a layer's backward: each module's forward again.
double recomputed_seconds(const LayerSeconds& layer, const RecomputeModules& modules);
// `expert`: the expert-parallel degree (each device computes its experts' share of the tokens).
// `context`: the context-parallel degree: each device takes 1/context of every sequence, its
// products and element-wise kernels on those tokens, its attention as `context` blocks of its
// queries against one rank's keys each (as ring attention computes them). A causal flash kernel
// computes the score tiles on and below the diagonal of the whole sequence only.
LayerSeconds layer_seconds(const DeviceSpec& d, const TransformerShape& t, int microbatch,
                           int tensor, int sequence_split = 1, int expert = 1, int context = 1);

// The output layer and the loss (vocabulary split over the tensor group): forward and backward.
LayerSeconds logit_seconds(const DeviceSpec& d, const TransformerShape& t, int microbatch,
                           int tensor);

// Bytes Adam's update moves per parameter in mixed precision, as Megatron-LM's and DeepSpeed's
// fused Adam run it: it reads the fp32 master weight, the fp32 gradient and the two moments
// (16 B) and writes the weight and the moments back (12 B) and the 16-bit copy the layers use
// (2 B).
inline constexpr double kAdamBytesPerParameter = 30;

// Seconds of the optimizer's update of `parameters` (one multi-tensor kernel, memory-bound).
double optimizer_seconds(const DeviceSpec& d, double parameters);

// Whether a plan's compute comes from this model: a transformer workload on a device with its
// bandwidth and multiprocessors given, where no efficiency (workload.efficiency, its table,
// training.efficiency) or measured throughput sets it.
bool compute_from_device(const Plan& plan);

// The share of peak the model reaches on a whole sequence's forward and backward, micro-batch
// `microbatch`, no tensor split: what data-parallel engines divide FLOPs by.
double device_efficiency(const Plan& plan, int microbatch);

}  // namespace scaleout::core
