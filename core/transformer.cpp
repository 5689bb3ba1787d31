#include "core/transformer.hpp"

namespace scaleout::core {

namespace {

double kv_width(const TransformerShape& t) {
  return static_cast<double>(t.hidden) * t.kv_heads / t.heads;
}

int mlp_matrices(const TransformerShape& t) { return t.mlp == MlpKind::kSwiglu ? 3 : 2; }

// Weights of a layer's matrices (no biases or norms): QKV, output projection, the MLP's two
// (gelu) or three (swiglu).
double layer_matrix_parameters(const TransformerShape& t) {
  double h = t.hidden, f = t.ffn_hidden;
  return h * (h + 2 * kv_width(t)) + h * h + mlp_matrices(t) * h * f;
}

}  // namespace

double layer_parameters(const TransformerShape& t) {
  double h = t.hidden, f = t.ffn_hidden;
  double attention_biases = (h + 2 * kv_width(t)) + h;
  double mlp_biases = t.mlp == MlpKind::kSwiglu ? 0 : f + h;
  double norms = 4 * h;
  return layer_matrix_parameters(t) + attention_biases + mlp_biases + norms;
}

double embedding_parameters(const TransformerShape& t) {
  double words = static_cast<double>(t.vocabulary) * t.hidden;
  double positions =
      t.positions == PositionKind::kLearned ? static_cast<double>(t.sequence) * t.hidden : 0;
  double output = t.tied_embeddings ? 0 : words;
  return words + positions + output;
}

double transformer_parameters(const TransformerShape& t) {
  return t.layers * layer_parameters(t) + embedding_parameters(t);
}

double layer_forward_flops(const TransformerShape& t) {
  double s = t.sequence, h = t.hidden;
  return 2 * s * layer_matrix_parameters(t) + 4 * s * s * h;
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
double split_activations_per_sbh(const TransformerShape& t) {
  double mlp_bytes_per_f = t.mlp == MlpKind::kSwiglu ? 6.0 : 4.0;
  return 8 + mlp_bytes_per_f * t.ffn_hidden / t.hidden;
}

}  // namespace

double layer_activation_bytes(const TransformerShape& t, int microbatch, int tensor,
                              bool sequence_parallel, Recompute recompute) {
  double sbh = static_cast<double>(t.sequence) * microbatch * t.hidden;
  double tp = tensor;
  if (recompute == Recompute::kFull) return sequence_parallel ? 2 * sbh / tp : 2 * sbh;
  bool scores_kept = recompute != Recompute::kSelective && t.attention != AttentionKind::kFlash;
  double attention = scores_kept ? 5.0 * t.heads * t.sequence / t.hidden : 0;  // the s x s scores
  double split = split_activations_per_sbh(t);
  if (sequence_parallel) return sbh * (10 + split + attention) / tp;
  return sbh * (10 + split / tp + attention / tp);
}

}  // namespace scaleout::core
