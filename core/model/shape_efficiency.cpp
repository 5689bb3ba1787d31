#include "core/model/shape_efficiency.hpp"

#include <cmath>

#include "core/model/transformer_products.hpp"

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

// A device's product over its efficiency.
double effective(const Workload& w, const MatrixProduct& p) {
  double flops = p.flops();
  return flops / product_efficiency(w, flops);
}

}  // namespace

double layer_forward_effective_flops(const Workload& w, int microbatch, int tensor,
                                     bool attention_again) {
  double mean = 0;
  for (LayerKind kind : layer_kinds(*w.transformer)) {
    double total = 0;
    for (const MatrixProduct& p : layer_products(*w.transformer, microbatch, tensor, kind.moe)) {
      double e = effective(w, p);
      bool attention = p.name == "scores" || p.name == "context";
      total += attention && attention_again ? 2 * e : e;
    }
    mean += kind.share * total;
  }
  return mean;
}

double logit_forward_effective_flops(const Workload& w, int microbatch, int tensor) {
  return effective(w, logit_product(*w.transformer, microbatch, tensor));
}

}  // namespace scaleout::core
