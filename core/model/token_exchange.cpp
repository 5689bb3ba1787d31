#include "core/model/token_exchange.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/model/model_parallel_work.hpp"

namespace scaleout::core {

namespace {

// The chance that `k` experts drawn without replacement from `pool` miss `held` of them.
double misses(int pool, int held, int k) {
  double p = 1;
  for (int i = 0; i < k; ++i) {
    if (pool - held - i <= 0) return 0;
    p *= static_cast<double>(pool - held - i) / (pool - i);
  }
  return p;
}

double log_choose(int n, int k) {
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

// The chance that `drawn` of `total` groups, drawn evenly, include exactly `j` of `held`.
double hypergeometric(int total, int held, int drawn, int j) {
  if (j > held || drawn - j > total - held || j > drawn) return 0;
  return std::exp(log_choose(held, j) + log_choose(total - held, drawn - j) -
                  log_choose(total, drawn));
}

// The chance that a token sends anything to a given node.
double node_reached(const MoeShape& m, int nodes) {
  int on_node = m.experts / nodes;
  if (m.groups == 0) return 1 - misses(m.experts, on_node, m.top_k);
  int per_group = m.experts / m.groups;
  int pool = m.group_top_k * per_group;  // the experts open to the token
  if (m.groups % nodes == 0) {           // whole groups on each node
    int held = m.groups / nodes;
    double reached = 0;
    for (int j = 1; j <= std::min(held, m.group_top_k); ++j)
      reached += hypergeometric(m.groups, held, m.group_top_k, j) *
                 (1 - misses(pool, j * per_group, m.top_k));
    return reached;
  }
  if (nodes % m.groups == 0)  // each group over whole nodes: the node's group drawn, then one of it
    return static_cast<double>(m.group_top_k) / m.groups * (1 - misses(pool, on_node, m.top_k));
  throw std::invalid_argument("transformer.moe.groups: " + std::to_string(m.groups) +
                              " groups neither divide nor are divided by the expert group's " +
                              std::to_string(nodes) + " nodes");
}

}  // namespace

double to_experts_element_bytes(const Parallelism& p) {
  return p.expert_dispatch_fp8 ? 1 + 4.0 / 128 : kActivationBytes;
}

double node_distinct_share(const MoeShape& m, int nodes) {
  if (nodes < 2) return 1;
  return node_reached(m, nodes) * nodes / m.top_k;
}

}  // namespace scaleout::core
