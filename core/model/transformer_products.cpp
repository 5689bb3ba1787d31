#include "core/model/transformer_products.hpp"

#include <algorithm>

#include "core/model/transformer.hpp"

namespace scaleout::core {

namespace {

double up_width(const TransformerShape& t, double f) {
  return t.mlp == MlpKind::kSwiglu ? 2 * f : f;  // swiglu: gate and up as one product
}

// The routed and shared experts' products that replace a dense MLP's two.
void add_moe_products(const TransformerShape& t, double tokens, int tensor, int expert,
                      std::vector<MatrixProduct>& out) {
  const MoeShape& m = *t.moe;
  double h = t.hidden, e = m.experts, f = m.expert_ffn_hidden, shared = m.shared_ffn_hidden;
  double padding = m.capacity_factor > 0 ? m.capacity_factor : 1.0;
  double busiest = expert > 1 ? m.imbalance : 1.0;
  double load = tokens * m.top_k * padding * expert / e * busiest;  // rows of each expert's
  double local = e / expert;
  out.push_back({"router", 1, tokens, e, h});
  out.push_back({"expert_up", local, load, up_width(t, f) / tensor, h});
  out.push_back({"expert_down", local, load, h, f / tensor});
  if (shared > 0) {
    out.push_back({"shared_up", 1, tokens, up_width(t, shared) / tensor, h});
    out.push_back({"shared_down", 1, tokens, h, shared / tensor});
  }
}

// Latent attention's products (DeepSeek-V2): the down projections' weights whole on every device
// of the group (duplicated), run over the device's share of the tokens (1 / sequence_split of
// them: all without sequence parallelism), the up projections split by heads, each head's scores
// over qk_nope_head_dim + qk_rope_head_dim and its context over v_head_dim.
std::vector<MatrixProduct> latent_attention_products(const TransformerShape& t, double tokens,
                                                     int microbatch, int tensor,
                                                     int sequence_split) {
  const LatentAttention& a = *t.latent;
  double h = t.hidden, s = t.sequence, heads = t.heads, own = tokens / sequence_split;
  double key_head = a.nope_dim + a.rope_dim;
  double heads_here = heads / tensor * microbatch;
  std::vector<MatrixProduct> out;
  if (a.q_rank > 0) {
    out.push_back({"q_down", 1, own, static_cast<double>(a.q_rank), h});
    out.push_back({"q_up", 1, tokens, heads * key_head / tensor, static_cast<double>(a.q_rank)});
  } else {
    out.push_back({"q_up", 1, tokens, heads * key_head / tensor, h});
  }
  out.push_back({"kv_down", 1, own, static_cast<double>(a.kv_rank) + a.rope_dim, h});
  out.push_back({"kv_up", 1, tokens, heads * (a.nope_dim + a.value_dim) / tensor,
                 static_cast<double>(a.kv_rank)});
  out.push_back({"scores", heads_here, s, s, key_head});
  out.push_back({"context", heads_here, s, static_cast<double>(a.value_dim), s});
  out.push_back({"projection", 1, tokens, h, heads * a.value_dim / tensor});
  return out;
}

}  // namespace

std::vector<MatrixProduct> layer_products(const TransformerShape& t, int microbatch, int tensor,
                                          bool moe, int expert, int sequence_split) {
  double tokens = static_cast<double>(t.sequence) * microbatch;
  double h = t.hidden, f = t.ffn_hidden, s = t.sequence;
  double head = head_width(t);
  double q = query_width(t);
  double kv = head * t.kv_heads;  // keys' (and values') width
  double heads_here = static_cast<double>(t.heads) / tensor * microbatch;
  std::vector<MatrixProduct> out =
      t.latent ? latent_attention_products(t, tokens, microbatch, tensor, sequence_split)
               : std::vector<MatrixProduct>{
                     {"qkv", 1, tokens, (q + 2 * kv) / tensor, h},
                     {"scores", heads_here, s, s, head},
                     {"context", heads_here, s, head, s},
                     {"projection", 1, tokens, h, q / tensor},
                 };
  if (moe && t.moe) {
    add_moe_products(t, tokens, tensor, expert, out);
  } else {
    out.push_back({"mlp_up", 1, tokens, up_width(t, f) / tensor, h});
    out.push_back({"mlp_down", 1, tokens, h, f / tensor});
  }
  return out;
}

std::vector<LayerKind> layer_kinds(const TransformerShape& t) {
  int moe_layers = moe_layer_count(t);
  if (moe_layers == 0) return {{false, 1.0}};
  if (moe_layers == t.layers) return {{true, 1.0}};
  double moe_share = static_cast<double>(moe_layers) / t.layers;
  return {{false, 1.0 - moe_share}, {true, moe_share}};
}

MatrixProduct logit_product(const TransformerShape& t, int microbatch, int tensor) {
  double tokens = static_cast<double>(t.sequence) * microbatch;
  return {"logits", 1, tokens, static_cast<double>(t.vocabulary) / tensor,
          static_cast<double>(t.hidden)};
}

std::vector<int> tensor_degrees(const TransformerShape& t, int devices_per_node,
                                bool across_nodes) {
  int dpn = std::max(1, devices_per_node);
  int most = across_nodes ? t.heads : std::min(t.heads, dpn);
  std::vector<int> out;
  for (int d = 1; d <= most; ++d)
    if (t.heads % d == 0 && t.kv_heads % d == 0 && (dpn % d == 0 || d % dpn == 0)) out.push_back(d);
  return out;
}

}  // namespace scaleout::core
