#include "core/model/device_compute.hpp"

#include <algorithm>
#include <cmath>

#include "core/model/compute_rate.hpp"
#include "core/model/transformer.hpp"

namespace scaleout::core {

namespace {

bool is_attention(const MatrixProduct& p) { return p.name == "scores" || p.name == "context"; }

// The peak a product runs at. FP8 training computes the linear layers' products in fp8 and the
// attention's in 16 bits (Transformer Engine's default, its fp8_dpa off; DeepSeek-V3's report,
// section 3.3.1), so an fp8 plan's attention runs at the device's bf16 (else fp16) peak; a
// topology's own `flops` stands for every product.
double product_peak(const DeviceSpec& d, const MatrixProduct& p) {
  if (d.element_bytes != 1 || d.flops_line != 0 || !is_attention(p)) return d.flops;
  for (const char* type : {"bf16", "fp16"})
    for (const PeakRate& r : d.peaks)
      if (r.type == type) return r.flops;
  return d.flops;
}

// The product's tiles in waves over the multiprocessors, each at the matmul ceiling (`fused`: a
// fused attention kernel's, at its own ceiling where the device has one).
double tile_seconds(const DeviceSpec& d, const MatrixProduct& p, bool fused = false) {
  double tiles = std::ceil(p.batch) * std::ceil(p.m / d.tile_rows) * std::ceil(p.n / d.tile_cols);
  double waves = std::ceil(tiles / d.multiprocessors);
  double measured = fused && d.attention_ceiling > 0 ? d.attention_ceiling : d.matmul_ceiling;
  double ceiling = measured > 0 ? measured : 1.0;  // none measured: the peak
  double tile_rate = ceiling * product_peak(d, p) / d.multiprocessors;
  return waves * 2.0 * d.tile_rows * d.tile_cols * p.k / tile_rate;
}

// The memory's rate a streaming kernel reaches: the datasheet's times the measured ceiling.
double achieved_bandwidth(const DeviceSpec& d) {
  return d.memory_bandwidth * (d.memory_ceiling > 0 ? d.memory_ceiling : 1.0);
}

}  // namespace

double matmul_seconds(const DeviceSpec& d, const MatrixProduct& p) {
  double bytes = d.element_bytes * p.batch * (p.m * p.k + p.k * p.n + p.m * p.n);
  return std::max(tile_seconds(d, p), bytes / achieved_bandwidth(d)) + d.kernel_gap;
}

double streaming_seconds(const DeviceSpec& d, double bytes, int kernels) {
  return bytes / achieved_bandwidth(d) + kernels * d.kernel_gap;
}

namespace {

// Activations stay 16-bit under fp8 matrix products; fp32 and tf32 keep them in 32 bits.
double activation_bytes(const DeviceSpec& d) { return d.element_bytes > 2 ? 4.0 : 2.0; }

// The gradients of a product's two inputs: dA = dC B^T (m x k over n) and dB = A^T dC (k x n
// over m), each one product's seconds.
struct BackwardSeconds {
  double input = 0, weight = 0;
};
BackwardSeconds matmul_backward_parts(const DeviceSpec& d, const MatrixProduct& p) {
  return {matmul_seconds(d, {p.name, p.batch, p.m, p.k, p.n}),
          matmul_seconds(d, {p.name, p.batch, p.k, p.n, p.m})};
}
double matmul_backward_seconds(const DeviceSpec& d, const MatrixProduct& p) {
  BackwardSeconds parts = matmul_backward_parts(d, p);
  return parts.input + parts.weight;
}

// Bytes of the forward's element-wise kernels. E: the residual stream (tokens x hidden, whole on
// every device of the group), F: the MLP's inner activations (split), A: the attention's scores
// (split by heads). Two layer norms (read, write), two bias-dropout-residual adds (read two,
// write one, write a one-byte mask), the MLP's activation, scale-mask-softmax (read, write), the
// attention's dropout (read, write, mask). The activation is bias-GeLU (read F, write F) or, for
// swiglu, SiLU(gate) x up (read the gate's and the up projection's F each, write F).
struct StreamingBytes {
  double residual = 0, attention = 0;
};
StreamingBytes layer_streaming_bytes(const DeviceSpec& d, const TransformerShape& t, int microbatch,
                                     int tensor, int sequence_split, bool moe) {
  double b = activation_bytes(d);
  double tokens = static_cast<double>(t.sequence) * microbatch;
  double width = moe ? moe_mlp_width(t) : t.ffn_hidden;
  double e = tokens * t.hidden / sequence_split, f = tokens * width / tensor;
  double a = static_cast<double>(microbatch) * t.heads / tensor * t.sequence * t.sequence;
  double mlp_activation = (t.mlp == MlpKind::kSwiglu ? 3 : 2) * f * b;
  double attention = t.attention == AttentionKind::kFlash ? 0 : 2 * a * b + (2 * a * b + a);
  return {2 * (2 * e * b) + 2 * (3 * e * b + e) + mlp_activation, attention};
}

// How a layer is split over the devices: a micro-batch's sequences, the tensor group (and the
// sequence parallelism over it), the expert-parallel and the context-parallel degrees.
struct LayerSplit {
  int microbatch = 1, tensor = 1, sequence_split = 1, expert = 1, context = 1;
};

// The share of the score tiles a causal kernel computes: of T tiles a side over the whole
// sequence, those on and below the diagonal, (T + 1) / 2T. Context parallelism's ranks, holding
// balanced halves of the sequence as Megatron-Core and Llama 3 split it, share them evenly.
double causal_share(const DeviceSpec& d, const TransformerShape& local, int context) {
  if (!local.causal) return 1.0;
  double tiles = std::ceil(static_cast<double>(local.sequence) * context / d.tile_rows);
  return (tiles + 1) / (2 * tiles);
}

// FlashAttention (Dao et al. 2022): the scores' and the context's products in one kernel that
// keeps the scores on chip: their tiles' work at the fused kernel's ceiling (else the matmul
// ceiling; a causal mask's tiles above the diagonal skipped), or Q, K, V and the output read and
// written once, whichever takes longer. Backward recomputes the scores: five products' work for
// forward's two.
struct FlashSeconds {
  double forward = 0, backward = 0;
};
FlashSeconds flash_seconds(const DeviceSpec& d, const TransformerShape& t,
                           const LayerSplit& split) {
  int microbatch = split.microbatch, tensor = split.tensor;
  double products = 0;
  for (const MatrixProduct& p : layer_products(t, microbatch, tensor))
    if (is_attention(p)) products += tile_seconds(d, p, true);
  products *= causal_share(d, t, split.context);
  double tokens = static_cast<double>(t.sequence) * microbatch;
  double width =
      t.latent         ? (query_width(t) + key_value_width(t) + attention_output_width(t)) / tensor
      : t.head_dim > 0 ? (2 * query_width(t) + 2 * kv_width(t)) / tensor
                       : static_cast<double>(t.hidden) / tensor * (2 + 2.0 * t.kv_heads / t.heads);
  double io = activation_bytes(d) * tokens * width / achieved_bandwidth(d);
  return {std::max(products, io) + d.kernel_gap, std::max(2.5 * products, 2 * io) + d.kernel_gap};
}

constexpr int kStreamingKernels = 7;  // forward; backward runs twice as many
constexpr int kAttentionKernels = 2;  // softmax, dropout
constexpr int kWeightsPerLayer = 4;   // QKV, projection, the MLP's two (swiglu: gate+up fused)

// The weight matrices of a layer: latent attention has two or three more than QKV's one (each
// latent's down and up projections).
int weight_matrices(const TransformerShape& t) {
  if (!t.latent) return kWeightsPerLayer;
  return kWeightsPerLayer + (t.latent->q_rank > 0 ? 3 : 2);
}

// Each micro-batch's weight gradients are added into 32-bit gradient buffers (Megatron-LM's
// main_grad, DeepSpeed's fp32 gradient accumulation): read the 16-bit gradient, read and write
// the 32-bit sum.
double accumulation_bytes(double parameters) { return parameters * (2 + 4 + 4); }

// A MoE layer's memory-bound work beyond a dense layer's: the router's softmax and top-k over
// tokens x experts (read, write), and the tokens' permutation to their experts and back (each reads
// and writes top_k copies of the tokens' hidden vectors).
constexpr int kMoeKernels = 3;
double moe_streaming_bytes(const DeviceSpec& d, const TransformerShape& t, int microbatch) {
  double b = activation_bytes(d);
  double tokens = static_cast<double>(t.sequence) * microbatch;
  double router = 2 * tokens * t.moe->experts * b;
  double permutations = 2 * (2 * tokens * t.moe->top_k * t.hidden * b);
  return router + permutations;
}

// A product's forward seconds, counted to the module of selective recomputation that runs it
// again (LayerSeconds), if any.
void add_recomputable_product(const MatrixProduct& p, double forward, LayerSeconds& out) {
  if (p.name == "q_up" || p.name == "kv_up") out.up_projections += forward;
  if (p.name == "mlp_up" || p.name == "mlp_down") out.dense_mlp += forward;
  if (p.name == "shared_up" || p.name == "shared_down") out.shared_experts += forward;
}

// The element-wise kernels selective recomputation can run again: the two norms, and the MLP's
// (dense) or the routed experts' (MoE) activation.
void add_recomputable_kernels(const DeviceSpec& d, const TransformerShape& t,
                              const LayerSplit& split, bool moe, LayerSeconds& out) {
  double b = activation_bytes(d);
  double tokens = static_cast<double>(t.sequence) * split.microbatch;
  // Each norm reads and writes the residual stream.
  out.norms = streaming_seconds(d, 2 * 2 * tokens * t.hidden * b / split.sequence_split, 2);
  // An activation reads its input (swiglu: gate and up) and writes f wide.
  double passes = t.mlp == MlpKind::kSwiglu ? 3 : 2;
  if (!moe || !t.moe) {
    out.dense_mlp += streaming_seconds(d, tokens * t.ffn_hidden / split.tensor * passes * b, 1);
    return;
  }
  double routed = moe_mlp_width(t) - t.moe->shared_ffn_hidden;  // top_k experts' a token
  out.expert_activation = streaming_seconds(d, tokens * routed / split.tensor * passes * b, 1);
}

// One layer of one kind (dense, or MoE when `moe`).
LayerSeconds kind_seconds(const DeviceSpec& d, const TransformerShape& t, const LayerSplit& split,
                          bool moe) {
  int microbatch = split.microbatch, tensor = split.tensor;
  int sequence_split = split.sequence_split, expert = split.expert;
  LayerSeconds out;
  bool flash = t.attention == AttentionKind::kFlash;
  if (flash) {
    FlashSeconds attention = flash_seconds(d, t, split);
    out.forward += attention.forward;
    out.backward += attention.backward;
    out.attention_forward += attention.forward;
    out.attention_backward += attention.backward;
  }
  for (const MatrixProduct& p :
       layer_products(t, microbatch, tensor, moe, expert, sequence_split)) {
    if (flash && is_attention(p)) continue;
    double forward = matmul_seconds(d, p);
    BackwardSeconds parts = matmul_backward_parts(d, p);
    double backward = parts.input + parts.weight;
    out.forward += forward;
    out.backward += backward;
    add_recomputable_product(p, forward, out);
    if (is_attention(p))
      out.attention_forward += forward, out.attention_backward += backward;
    else
      out.weight_backward += parts.weight;
  }
  StreamingBytes bytes = layer_streaming_bytes(d, t, microbatch, tensor, sequence_split, moe);
  int kernels = flash ? kStreamingKernels - kAttentionKernels : kStreamingKernels;
  double streaming = streaming_seconds(d, bytes.residual + bytes.attention, kernels);
  if (moe) streaming += streaming_seconds(d, moe_streaming_bytes(d, t, microbatch), kMoeKernels);
  out.forward += streaming;
  out.backward += 2 * streaming;  // each kernel's gradient reads what it saved and the gradient
  // The experts a device holds: experts / expert of them.
  double parameters = moe ? moe_layer_parameters(t) - (1.0 - 1.0 / expert) *
                                                          layer_expert_parameters(t) * t.layers /
                                                          moe_layer_count(t)
                          : dense_layer_parameters(t);
  double local = parameters / tensor + latent_down_parameters(t) * (1.0 - 1.0 / tensor);
  double accumulation = streaming_seconds(d, accumulation_bytes(local), weight_matrices(t));
  out.backward += accumulation;
  out.weight_backward += accumulation;
  if (!flash) {
    double softmax = streaming_seconds(d, bytes.attention, kAttentionKernels);
    out.attention_forward += softmax;
    out.attention_backward += 2 * softmax;
  }
  add_recomputable_kernels(d, t, split, moe, out);
  return out;
}

// Every kind of layer, weighted by its share of the layers.
LayerSeconds mean_layer_seconds(const DeviceSpec& d, const TransformerShape& t,
                                const LayerSplit& split) {
  std::vector<LayerKind> kinds = layer_kinds(t);
  if (kinds.size() == 1) return kind_seconds(d, t, split, kinds[0].moe);
  LayerSeconds mean;
  for (LayerKind kind : kinds) {
    LayerSeconds one = kind_seconds(d, t, split, kind.moe);
    mean.forward += kind.share * one.forward;
    mean.backward += kind.share * one.backward;
    mean.attention_forward += kind.share * one.attention_forward;
    mean.attention_backward += kind.share * one.attention_backward;
    mean.weight_backward += kind.share * one.weight_backward;
    mean.norms += kind.share * one.norms;
    mean.up_projections += kind.share * one.up_projections;
    mean.expert_activation += kind.share * one.expert_activation;
    mean.dense_mlp += kind.share * one.dense_mlp;
    mean.shared_experts += kind.share * one.shared_experts;
  }
  return mean;
}

}  // namespace

LayerSeconds layer_seconds(const DeviceSpec& d, const TransformerShape& t, int microbatch,
                           int tensor, int sequence_split, int expert, int context) {
  LayerSplit split{microbatch, tensor, sequence_split, expert, context};
  if (context == 1) return mean_layer_seconds(d, t, split);
  TransformerShape local = t;
  local.sequence = t.sequence / context;
  LayerSeconds out = mean_layer_seconds(d, local, split);
  out.forward += (context - 1) * out.attention_forward;
  out.backward += (context - 1) * out.attention_backward;
  out.attention_forward *= context;
  out.attention_backward *= context;
  return out;
}

LayerSeconds logit_seconds(const DeviceSpec& d, const TransformerShape& t, int microbatch,
                           int tensor) {
  MatrixProduct p = logit_product(t, microbatch, tensor);
  // Megatron's vocabulary-parallel cross-entropy in fp32: the 16-bit logits read, then about
  // three 4-byte passes (max, exponentials and their sum, the loss); backward writes the
  // softmax's gradient back as 16-bit.
  double logits = p.m * p.n;
  LayerSeconds out;
  out.forward = matmul_seconds(d, p) + streaming_seconds(d, logits * (2 + 3 * 4), 3);
  out.backward = matmul_backward_seconds(d, p) + streaming_seconds(d, logits * (4 + 2), 1) +
                 streaming_seconds(d, accumulation_bytes(p.n * p.k), 1);
  return out;
}

bool compute_from_device(const Plan& plan) {
  const Workload& w = plan.workload;
  const DeviceSpec& d = plan.cluster.device;
  return w.transformer && d.memory_bandwidth > 0 && d.multiprocessors > 0 &&
         w.efficiency_line == 0 && w.efficiency_by_size.empty() && !plan.training.efficiency &&
         !measured_throughput(plan);
}

double device_efficiency(const Plan& plan, int microbatch) {
  const DeviceSpec& d = plan.cluster.device;
  const TransformerShape& t = *plan.workload.transformer;
  LayerSeconds layer = layer_seconds(d, t, microbatch, 1);
  LayerSeconds logits = logit_seconds(d, t, microbatch, 1);
  double seconds = t.layers * (layer.forward + layer.backward) + logits.forward + logits.backward;
  return microbatch * plan.workload.flops_per_sample / (seconds * d.flops);
}

double recomputed_seconds(const LayerSeconds& layer, const RecomputeModules& modules) {
  return (modules.core_attn ? layer.attention_forward : 0) + (modules.layernorm ? layer.norms : 0) +
         (modules.mla_up_proj ? layer.up_projections : 0) +
         (modules.moe_act ? layer.expert_activation : 0) + (modules.mlp ? layer.dense_mlp : 0) +
         (modules.shared_experts ? layer.shared_experts : 0);
}

double optimizer_seconds(const DeviceSpec& d, double parameters) {
  return streaming_seconds(d, parameters * kAdamBytesPerParameter, 1);
}

}  // namespace scaleout::core
