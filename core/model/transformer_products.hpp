// The matrix products of a transformer layer's forward on one device of a tensor group, as
// Megatron splits them: QKV and the MLP's first product split by columns, the output projection
// and the MLP's second by rows, the attention's heads shared out. Each product is a batch of
// m x k times k x n; its FLOPs are 2 m n k per batch. The compute model
// (core/model/shape_efficiency) charges them and `calibrate --model` times them.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

struct MatrixProduct {
  // "qkv", "scores", "context", "projection", "mlp_up", "mlp_down", "logits"; MoE layers: "router",
  // "expert_up", "expert_down", "shared_up", "shared_down"; latent attention's "q_down", "q_up",
  // "kv_down", "kv_up" in place of "qkv"
  std::string name;
  double batch = 1, m = 0, n = 0, k = 0;
  double flops() const { return 2 * batch * m * n * k; }
};

// One layer's six forward products for `microbatch` sequences on one device of a tensor group of
// `tensor` (scores: Q K^T per head; context: the scores times V). A swiglu MLP's gate and up
// projections are one product of twice the width (mlp_up), as Megatron-LM fuses them.
//
// A MoE layer (`moe` true, t.moe given) keeps the four attention products and replaces the MLP's
// two by the router (tokens x hidden times hidden x experts, whole on every device of the group),
// the routed experts' two as one grouped product each (batch: the experts; rows: each expert's
// mean load, tokens x top_k / experts, padded to the capacity factor when one is given; columns
// split over the group as a dense MLP's), and the shared experts' two when there are any.
//
// With expert parallelism (`expert` > 1) a device holds experts / expert of them and computes the
// tokens its expert-parallel group routes to them: a batch of experts / expert, each with expert
// times the rows above, times the busiest rank's `imbalance`.
//
// Latent attention's down projections, whole on every device of the group, run over its share of
// the tokens: 1 / `sequence_split` of them (the tensor degree under sequence parallelism).
std::vector<MatrixProduct> layer_products(const TransformerShape& t, int microbatch, int tensor,
                                          bool moe = false, int expert = 1, int sequence_split = 1);

// The kinds of layer a model holds with their share of its layers: the dense layer alone (share
// 1), or with a mixture of experts the dense one (if any is left) and the MoE one.
struct LayerKind {
  bool moe = false;
  double share = 1;
};
std::vector<LayerKind> layer_kinds(const TransformerShape& t);

// The output layer's forward product (hidden x vocabulary, the vocabulary split over the group).
MatrixProduct logit_product(const TransformerShape& t, int microbatch, int tensor);

// The tensor degrees a split may use: divisors of the heads and of the key-value heads that divide
// a node's devices (or are whole multiples of it when `across_nodes`).
std::vector<int> tensor_degrees(const TransformerShape& t, int devices_per_node, bool across_nodes);

}  // namespace scaleout::core
