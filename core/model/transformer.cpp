#include "core/model/transformer.hpp"

namespace scaleout::core {

double head_width(const TransformerShape& t) {
  return t.head_dim > 0 ? t.head_dim : static_cast<double>(t.hidden) / t.heads;
}

double query_width(const TransformerShape& t) {
  if (t.latent) return static_cast<double>(t.heads) * (t.latent->nope_dim + t.latent->rope_dim);
  return t.head_dim > 0 ? static_cast<double>(t.head_dim) * t.heads : t.hidden;
}

double key_value_width(const TransformerShape& t) {
  if (t.latent) return query_width(t) + attention_output_width(t);
  return 2 * kv_width(t);
}

double attention_output_width(const TransformerShape& t) {
  if (t.latent) return static_cast<double>(t.heads) * t.latent->value_dim;
  return query_width(t);
}

double latent_down_parameters(const TransformerShape& t) {
  if (!t.latent) return 0;
  const LatentAttention& a = *t.latent;
  return static_cast<double>(t.hidden) * (a.q_rank + a.kv_rank + a.rope_dim);
}

double kv_width(const TransformerShape& t) {
  if (t.head_dim > 0) return static_cast<double>(t.head_dim) * t.kv_heads;
  return static_cast<double>(t.hidden) * t.kv_heads / t.heads;
}

namespace {

int mlp_matrices(const TransformerShape& t) { return t.mlp == MlpKind::kSwiglu ? 3 : 2; }

// Latent attention's matrices: the down projections (hidden to each latent, and to the shared
// rotary key part), the up projections (each latent to every head's query, or key and value; the
// queries straight from the hidden state without a query latent) and the output projection.
double latent_attention_parameters(const TransformerShape& t) {
  const LatentAttention& a = *t.latent;
  double h = t.hidden, q = query_width(t), out = attention_output_width(t);
  double queries = a.q_rank > 0 ? a.q_rank * q : h * q;
  double keys_values = a.kv_rank * (static_cast<double>(t.heads) * a.nope_dim + out);
  return latent_down_parameters(t) + queries + keys_values + out * h;
}

// The attention's matrices: QKV and the output projection.
double attention_matrix_parameters(const TransformerShape& t) {
  if (t.latent) return latent_attention_parameters(t);
  double h = t.hidden, q = query_width(t);
  return h * (q + 2 * kv_width(t)) + q * h;
}

// One MLP of inner width f: its matrices, and its biases (gelu only).
double mlp_matrix_parameters(const TransformerShape& t, double f) {
  return mlp_matrices(t) * static_cast<double>(t.hidden) * f;
}
double mlp_biases(const TransformerShape& t, double f) {
  return t.mlp == MlpKind::kSwiglu ? 0 : f + t.hidden;
}

// The attention's biases and the two norms (LayerNorm's weight and bias), in every layer. Latent
// attention has no biases and a norm over each latent.
double attention_biases_and_norms(const TransformerShape& t) {
  double h = t.hidden;
  if (t.latent) return static_cast<double>(t.latent->q_rank) + t.latent->kv_rank + 4 * h;
  return (query_width(t) + 2 * kv_width(t)) + h + 4 * h;
}

// A MoE layer's MLP matrices for `routed` of its experts: the router, those experts and the shared
// ones.
double moe_matrix_parameters(const TransformerShape& t, double routed) {
  const MoeShape& m = *t.moe;
  return static_cast<double>(t.hidden) * m.experts +
         routed * mlp_matrix_parameters(t, m.expert_ffn_hidden) +
         mlp_matrix_parameters(t, m.shared_ffn_hidden);
}

double moe_biases(const TransformerShape& t, double routed) {
  const MoeShape& m = *t.moe;
  double shared = m.shared_ffn_hidden > 0 ? mlp_biases(t, m.shared_ffn_hidden) : 0;
  return routed * mlp_biases(t, m.expert_ffn_hidden) + shared;
}

// The matrix weights a token passes through in one layer of each kind (no biases or norms).
double dense_matrix_parameters(const TransformerShape& t) {
  return attention_matrix_parameters(t) + mlp_matrix_parameters(t, t.ffn_hidden);
}
double moe_active_matrix_parameters(const TransformerShape& t) {
  return attention_matrix_parameters(t) + moe_matrix_parameters(t, t.moe->top_k);
}

// The mean over the layers of a per-layer figure that differs between dense and MoE layers.
double layer_mean(const TransformerShape& t, double dense, double moe) {
  int moe_layers = moe_layer_count(t);
  if (moe_layers == 0) return dense;
  return ((t.layers - moe_layers) * dense + moe_layers * moe) / t.layers;
}

}  // namespace

int moe_layer_count(const TransformerShape& t) {
  if (!t.moe) return 0;
  int every = t.moe->every, first = t.moe->first_dense;
  int first_moe = (first + every - 1) / every * every;  // the first index from first_dense on
  return first_moe >= t.layers ? 0 : (t.layers - first_moe + every - 1) / every;
}

double dense_layer_parameters(const TransformerShape& t) {
  return dense_matrix_parameters(t) + mlp_biases(t, t.ffn_hidden) + attention_biases_and_norms(t);
}

double moe_layer_parameters(const TransformerShape& t) {
  if (!t.moe) return dense_layer_parameters(t);
  double experts = t.moe->experts;
  return attention_matrix_parameters(t) + moe_matrix_parameters(t, experts) +
         moe_biases(t, experts) + attention_biases_and_norms(t);
}

double moe_layer_expert_parameters(const TransformerShape& t) {
  if (!t.moe) return 0;
  double f = t.moe->expert_ffn_hidden;
  return t.moe->experts * (mlp_matrix_parameters(t, f) + mlp_biases(t, f));
}

double layer_expert_parameters(const TransformerShape& t) {
  return layer_mean(t, 0, moe_layer_expert_parameters(t));
}

double layer_expert_forward_flops(const TransformerShape& t) {
  if (!t.moe) return 0;
  double routed = t.moe->top_k * mlp_matrix_parameters(t, t.moe->expert_ffn_hidden);
  return layer_mean(t, 0, 2.0 * t.sequence * routed);
}

double layer_parameters(const TransformerShape& t) {
  return layer_mean(t, dense_layer_parameters(t), moe_layer_parameters(t));
}

double moe_mlp_width(const TransformerShape& t) {
  if (!t.moe) return t.ffn_hidden;
  const MoeShape& m = *t.moe;
  double padding = m.capacity_factor > 0 ? m.capacity_factor : 1.0;
  return m.top_k * padding * m.expert_ffn_hidden + m.shared_ffn_hidden;
}

double embedding_parameters(const TransformerShape& t) {
  double words = static_cast<double>(t.vocabulary) * t.hidden;
  double positions =
      t.positions == PositionKind::kLearned ? static_cast<double>(t.sequence) * t.hidden : 0;
  double output = t.tied_embeddings ? 0 : words;
  return words + positions + output;
}

double transformer_parameters(const TransformerShape& t) {
  int moe_layers = moe_layer_count(t);
  return (t.layers - moe_layers) * dense_layer_parameters(t) +
         moe_layers * moe_layer_parameters(t) + embedding_parameters(t);
}

double active_parameters(const TransformerShape& t) {
  if (!t.moe) return transformer_parameters(t);
  double idle = t.moe->experts - t.moe->top_k;
  double idle_expert =
      mlp_matrix_parameters(t, t.moe->expert_ffn_hidden) + mlp_biases(t, t.moe->expert_ffn_hidden);
  return transformer_parameters(t) - moe_layer_count(t) * idle * idle_expert;
}

double layer_forward_flops(const TransformerShape& t) {
  double s = t.sequence, q = query_width(t);
  double matrices =
      layer_mean(t, dense_matrix_parameters(t), t.moe ? moe_active_matrix_parameters(t) : 0);
  if (t.latent) return 2 * s * matrices + 2 * s * s * (q + attention_output_width(t));
  return 2 * s * matrices + 4 * s * s * q;
}

double moe_mlp_share(const TransformerShape& t) {
  if (!t.moe) return 0;
  double s = t.sequence, q = query_width(t);
  double attention = t.latent ? 2 * s * s * (q + attention_output_width(t)) : 4 * s * s * q;
  double mlp = 2 * s * moe_matrix_parameters(t, t.moe->top_k);
  return mlp / (2 * s * moe_active_matrix_parameters(t) + attention);
}

double logit_forward_flops(const TransformerShape& t) {
  return 2.0 * t.sequence * t.hidden * t.vocabulary;
}

double model_flops_per_sequence(const TransformerShape& t) {
  return 3 * (t.layers * layer_forward_flops(t) + logit_forward_flops(t));
}

double megatron_flops_per_sequence(const TransformerShape& t) {
  return 4 * t.layers * layer_forward_flops(t) + 3 * logit_forward_flops(t);
}

namespace {

// Korthikanti et al.'s 34 s b h, in units of s b h: 10 kept whole on every device of a tensor
// group (the two norms' inputs 4, the QKV and first MLP inputs 2 + 2, two dropout masks 2) and 24
// split over it, of which 8 are the attention's Q, K, V and projection input, and 16 the MLP's
// inner activations: GeLU's input and output, 2 x 2 s b f bytes with f = 4h. A swiglu MLP keeps
// its fused gate-and-up output (2 x 2 s b f) and the down projection's input (2 s b f).
// With FP8 products (`fp8`) Transformer Engine keeps each linear layer's input as the FP8 copy it
// multiplied, a byte where 2 were: the projection's input (its context, the value width) and the
// down projection's (f). `dropped`: what selective recomputation computes again instead.
double split_activations_per_sbh(const TransformerShape& t, bool fp8,
                                 const RecomputeModules& dropped) {
  double linear_input = fp8 ? 1 : 2;
  double per_f = (t.mlp == MlpKind::kSwiglu ? 6.0 : 4.0) - (fp8 ? 1 : 0);
  double dense = dropped.mlp ? 0 : per_f * t.ffn_hidden;
  double moe = 0;
  if (t.moe) {
    double routed = moe_mlp_width(t) - t.moe->shared_ffn_hidden;
    moe = (per_f - (dropped.moe_act ? linear_input : 0)) * routed +
          (dropped.shared_experts ? 0 : per_f * t.moe->shared_ffn_hidden);
  }
  double out = attention_output_width(t);
  double attention = t.latent ? 4 * (query_width(t) + out) : 8 * query_width(t);
  attention -= fp8 ? out : 0;
  if (t.latent && dropped.mla_up_proj) attention = linear_input * out;  // Q, K, V computed again
  return (attention + layer_mean(t, dense, moe)) / t.hidden;
}

// Latent attention also keeps, whole on every device of a tensor group (its down projections are
// duplicated there), each latent before and after its norm and the shared rotary key part; the
// normed latents are the up projections' inputs (a byte each under FP8).
double latent_activations_per_sbh(const TransformerShape& t, bool fp8) {
  if (!t.latent) return 0;
  const LatentAttention& a = *t.latent;
  double normed = fp8 ? a.q_rank + a.kv_rank : 0;
  return (2.0 * (2 * a.q_rank + 2 * a.kv_rank + a.rope_dim) - normed) / t.hidden;
}

// A MoE layer also keeps each token's top_k dispatched copies of its input (2 bytes x h each, the
// experts' first inputs: 1 under FP8), whole on every device like the MLP's own input, and the
// router's probabilities (negligible).
double dispatch_activations_per_sbh(const TransformerShape& t, bool fp8) {
  return t.moe ? layer_mean(t, 0, (fp8 ? 1.0 : 2.0) * t.moe->top_k) : 0;
}

}  // namespace

double layer_activation_bytes(const TransformerShape& t, int microbatch, int tensor,
                              bool sequence_parallel, Recompute recompute, bool fp8,
                              const RecomputeModules& modules) {
  double sbh = static_cast<double>(t.sequence) * microbatch * t.hidden;
  double tp = tensor;
  if (recompute == Recompute::kFull) return sequence_parallel ? 2 * sbh / tp : 2 * sbh;
  RecomputeModules dropped = recompute == Recompute::kSelective ? modules : RecomputeModules{false};
  bool scores_kept = !dropped.core_attn && t.attention != AttentionKind::kFlash;
  double attention = scores_kept ? 5.0 * t.heads * t.sequence / t.hidden : 0;  // the s x s scores
  double split = split_activations_per_sbh(t, fp8, dropped);
  // The QKV and first MLP inputs, the norms' outputs: a byte each under FP8, none when the norms
  // are computed again.
  double norm_outputs = dropped.layernorm ? 0 : 2 * (fp8 ? 1 : 2);
  double whole =
      6 + norm_outputs + dispatch_activations_per_sbh(t, fp8) + latent_activations_per_sbh(t, fp8);
  if (sequence_parallel) return sbh * (whole + split + attention) / tp;
  return sbh * (whole + split / tp + attention / tp);
}

}  // namespace scaleout::core
