// What a transformer's dimensions imply: parameters, FLOPs and activation memory, as Megatron-LM's
// papers count them (Narayanan et al. 2021; Korthikanti et al. 2022). Per sequence unless said.
#pragma once

#include "core/plan.hpp"

namespace scaleout::core {

// Parameters of one transformer layer: the attention's QKV and output projections, the MLP's two
// matrices, their biases and two layer norms (12h^2 + 13h for the default FFN and heads). A
// swiglu MLP has three matrices (3hf) and no biases. The attention's biases and the norms' 4h
// (LayerNorm's weight and bias) are counted for every MLP; Llama has no biases and RMSNorm's h, so
// Llama 2 70B counts 34,816 parameters a layer too many (0.004% of the model). The final norm is
// not counted, as Narayanan et al. do not count it.
double layer_parameters(const TransformerShape& t);
// Word embeddings V h, learned position embeddings s h (none for rotary positions), and an output
// layer of its own V h when the embeddings are not tied (tied: it shares the word embedding).
double embedding_parameters(const TransformerShape& t);
// The whole model: 12lh^2 (1 + 13/12h + (V+s)/12lh) for the default FFN.
double transformer_parameters(const TransformerShape& t);

// Forward FLOPs of one layer for one sequence: 2 per multiply-add of the matrix products
// (2s x the layer's matrix parameters) and the attention's two s x s products (4 s^2 h).
double layer_forward_flops(const TransformerShape& t);
// Forward FLOPs of the output layer (logits) for one sequence: 2 s h V.
double logit_forward_flops(const TransformerShape& t);
// Model FLOPs for forward + backward of one sequence (backward = 2 x forward), without
// recomputation: 72 s l h^2 (1 + s/6h + V/12lh) for the default FFN. MFU counts these.
double model_flops_per_sequence(const TransformerShape& t);
// Narayanan et al. 2021's count, which includes the recomputed forward of full recomputation:
// 96 s l h^2 (1 + s/6h + V/16lh) for the default FFN.
double megatron_flops_per_sequence(const TransformerShape& t);

// Bytes of activations one layer keeps for backward, per micro-batch of `microbatch` sequences,
// on one device of a tensor group of `tensor` (Korthikanti et al. 2022, Table 2): without
// recomputation s b h (10 + 24/t + 5 a s / (h t)); sequence parallelism divides all of it by t;
// selective recomputation drops the 5 a s / h term; full recomputation keeps the layer's input,
// 2 s b h (divided by t under sequence parallelism). The constants assume 16-bit activations; the
// MLP's share of the 24 follows ffn_hidden (16 of it at 4h: 4 f / h, swiglu 6 f / h).
double layer_activation_bytes(const TransformerShape& t, int microbatch, int tensor,
                              bool sequence_parallel, Recompute recompute);

}  // namespace scaleout::core
