#include "core/shape_efficiency.hpp"

#include <cmath>

namespace scaleout::core {

double product_efficiency(const Workload& w, double flops) {
  const auto& table = w.efficiency_by_size;
  if (table.empty()) return w.efficiency;
  if (flops <= table.front().first) return table.front().second;
  if (flops >= table.back().first) return table.back().second;
  for (std::size_t i = 1; i < table.size(); ++i) {
    auto [x1, e1] = table[i];
    if (flops > x1) continue;
    auto [x0, e0] = table[i - 1];
    double a = std::log(flops / x0) / std::log(x1 / x0);
    return e0 + a * (e1 - e0);
  }
  return table.back().second;
}

namespace {

// One device's share of a product of `flops` FLOPs per sequence, over its efficiency.
double effective(const Workload& w, double flops, int microbatch, int tensor) {
  double mine = flops * microbatch / tensor;
  return mine / product_efficiency(w, mine);
}

}  // namespace

double layer_forward_effective_flops(const Workload& w, int microbatch, int tensor,
                                     bool attention_again) {
  const TransformerShape& t = *w.transformer;
  double s = t.sequence, h = t.hidden, f = t.ffn_hidden;
  double kv = h * t.kv_heads / t.heads;
  auto product = [&](double flops) { return effective(w, flops, microbatch, tensor); };
  double attention = 2 * product(2 * s * s * h);  // the scores and their product with V
  return product(2 * s * h * (h + 2 * kv)) + attention + product(2 * s * h * h) +
         2 * product(2 * s * h * f) + (attention_again ? attention : 0);
}

double logit_forward_effective_flops(const Workload& w, int microbatch, int tensor) {
  const TransformerShape& t = *w.transformer;
  return effective(w, 2.0 * t.sequence * t.hidden * t.vocabulary, microbatch, tensor);
}

}  // namespace scaleout::core
