#include "core/transformer_products.hpp"

#include <algorithm>

namespace scaleout::core {

std::vector<MatrixProduct> layer_products(const TransformerShape& t, int microbatch, int tensor) {
  double tokens = static_cast<double>(t.sequence) * microbatch;
  double h = t.hidden, f = t.ffn_hidden, s = t.sequence;
  double head = h / t.heads;
  double kv = head * t.kv_heads;  // keys' (and values') width
  double heads_here = static_cast<double>(t.heads) / tensor * microbatch;
  double up = t.mlp == MlpKind::kSwiglu ? 2 * f : f;  // swiglu: gate and up as one product
  return {
      {"qkv", 1, tokens, (h + 2 * kv) / tensor, h}, {"scores", heads_here, s, s, head},
      {"context", heads_here, s, head, s},          {"projection", 1, tokens, h, h / tensor},
      {"mlp_up", 1, tokens, up / tensor, h},        {"mlp_down", 1, tokens, h, f / tensor},
  };
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
