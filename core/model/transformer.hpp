// What a transformer's dimensions imply: parameters, FLOPs and activation memory, as Megatron-LM's
// papers count them (Narayanan et al. 2021; Korthikanti et al. 2022). Per sequence unless said.
#pragma once

#include "core/plan/plan.hpp"

namespace scaleout::core {

// Parameters of one transformer layer: the attention's QKV and output projections, the MLP's two
// matrices, their biases and two layer norms (12h^2 + 13h for the default FFN and heads). A
// swiglu MLP has three matrices (3hf) and no biases. The attention's biases and the norms' 4h
// (LayerNorm's weight and bias) are counted for every MLP; Llama has no biases and RMSNorm's h, so
// Llama 2 70B counts 34,816 parameters a layer too many (0.004% of the model). The final norm is
// not counted, as Narayanan et al. do not count it. Latent attention (t.latent) counts its five
// matrices, no biases, and its two latents' norms beside the layer's two.
//
// A mixture of experts (t.moe) makes its MoE layers differ from the dense ones: the per-layer
// figures below (layer_parameters, layer_forward_flops, layer_activation_bytes) are then the mean
// over the model's layers, which is each pipeline stage's own mean when `every` divides the
// layers of a stage (plan validation requires it).
double layer_parameters(const TransformerShape& t);

// The attention's widths: one head's (head_dim, else hidden / heads), all query heads' together
// and the keys' (or values'), kv_heads heads. With latent attention the queries' (and keys') width
// is heads x (qk_nope_head_dim + qk_rope_head_dim).
double head_width(const TransformerShape& t);
double query_width(const TransformerShape& t);
double kv_width(const TransformerShape& t);
// The keys' and values' widths together (what ring attention passes around), and the width of the
// attention's output, the projection's input (heads x v_head_dim with latent attention).
double key_value_width(const TransformerShape& t);
double attention_output_width(const TransformerShape& t);
// Latent attention's down projections' parameters in one layer (0 without latent attention):
// duplicated on every device of a tensor group, not split.
double latent_down_parameters(const TransformerShape& t);
// The layers whose MLP is a mixture of experts: those from the first_dense-th on whose index
// `every` divides (0 without moe).
int moe_layer_count(const TransformerShape& t);
// One dense layer's parameters, and one MoE layer's: the attention, its biases and norms, the
// router (h x experts), every expert's MLP and the shared experts' (a dense layer's without moe).
double dense_layer_parameters(const TransformerShape& t);
double moe_layer_parameters(const TransformerShape& t);
// The routed experts' parameters a layer holds, the mean over the layers (0 without moe): what
// expert parallelism shares out, and what the experts' own data group exchanges.
double layer_expert_parameters(const TransformerShape& t);
// The routed experts' parameters of one MoE layer (0 without moe).
double moe_layer_expert_parameters(const TransformerShape& t);
// The forward FLOPs of the routed experts a sequence's tokens pass through, the mean over layers.
double layer_expert_forward_flops(const TransformerShape& t);
// The inner width a token's activations take in a MoE layer: its top_k experts' (padded to the
// capacity factor when one is given) and the shared experts'; ffn_hidden without moe.
double moe_mlp_width(const TransformerShape& t);
// Word embeddings V h, learned position embeddings s h (none for rotary positions), and an output
// layer of its own V h when the embeddings are not tied (tied: it shares the word embedding).
double embedding_parameters(const TransformerShape& t);
// The whole model: 12lh^2 (1 + 13/12h + (V+s)/12lh) for the default FFN.
double transformer_parameters(const TransformerShape& t);
// The parameters one token passes through: all of them less, in each MoE layer, the experts it is
// not routed to (experts - top_k). The whole model without moe.
double active_parameters(const TransformerShape& t);

// Forward FLOPs of one layer for one sequence: 2 per multiply-add of the matrix products
// (2s x the layer's matrix parameters) and the attention's two s x s products (4 s^2 h; with
// latent attention 2 s^2 heads (qk_nope_head_dim + qk_rope_head_dim + v_head_dim)). A MoE
// layer counts the matrices a token passes through: the router, top_k experts and the shared
// ones (the model's FLOPs, without a capacity factor's padding).
double layer_forward_flops(const TransformerShape& t);
// Of one MoE layer's forward FLOPs, the share of its MLP block (the router, the top_k experts a
// token passes through and the shared ones); the rest is its attention block. 0 without moe.
double moe_mlp_share(const TransformerShape& t);
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
// MLP's share of the 24 follows ffn_hidden (16 of it at 4h: 4 f / h, swiglu 6 f / h). `fp8`: the
// products run in FP8, and Transformer Engine keeps every linear layer's input as its FP8 copy (a
// byte an element: the QKV, projection, both MLP and the experts' inputs, latent attention's up
// projections'); the rest stays 16-bit, as does full recomputation's layer input. Selective
// recomputation drops what `modules` computes again: the scores (core_attn), the norms' outputs
// (layernorm), latent attention's Q, K and V (mla_up_proj), the routed experts' down projection
// input (moe_act), a dense MLP's inner activations (mlp), the shared experts' (shared_experts).
double layer_activation_bytes(const TransformerShape& t, int microbatch, int tensor,
                              bool sequence_parallel, Recompute recompute, bool fp8 = false,
                              const RecomputeModules& modules = {});

}  // namespace scaleout::core
