#include "core/programs/strategy.hpp"

#include <cassert>
#include <cmath>

#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

Span split_part(Span span, int parts, int index) {
  assert(parts > 0 && index >= 0 && index < parts);
  std::int64_t base = span.count / parts, rest = span.count % parts;
  std::int64_t begin = span.begin + index * base + std::min<std::int64_t>(index, rest);
  return Span{begin, base + (index < rest ? 1 : 0)};
}

std::array<int, 2> torus_grid(const Strategy& strategy, int workers) {
  if (strategy.grid) return *strategy.grid;
  int y = static_cast<int>(std::sqrt(static_cast<double>(workers)));
  while (y > 1 && workers % y != 0) --y;
  return {workers / y, y};
}

namespace {
// The plan's pipeline chunk in gradient elements.
std::int64_t chunk_elements(const Plan& plan) {
  return static_cast<std::int64_t>(plan.strategy.chunk / plan.training.gradient_bytes_per_element);
}
}  // namespace

std::unique_ptr<StrategyProgram> make_strategy(const Plan& plan, const RankLayout& layout) {
  switch (plan.strategy.kind) {
    case StrategyKind::kRing:
      // Compression is validated to run over the ring and the synchronous PS
      // (core/plan/plan_validation.cpp).
      if (plan.training.compression.on()) return make_compressed_ring(plan, layout);
      return make_ring(layout);
    case StrategyKind::kTorus2d:
      return make_torus2d(layout, torus_grid(plan.strategy, layout.workers));
    case StrategyKind::kHierarchicalRing:
      return make_hierarchical_ring(plan, layout);
    case StrategyKind::kHalvingDoubling:
      return make_halving_doubling(layout);
    case StrategyKind::kTree:
      return make_tree(layout, static_cast<std::int64_t>(plan.strategy.chunk /
                                                         plan.training.gradient_bytes_per_element));
    case StrategyKind::kHierarchicalAllreduce:
      return make_hierarchical_allreduce(layout, chunk_elements(plan));
    case StrategyKind::kHierarchicalHalvingDoubling:
      return make_hierarchical_halving_doubling(layout, chunk_elements(plan));
    case StrategyKind::kPs:
      if (plan.strategy.ps_local_aggregation == PsAggregation::kNode)
        return plan.training.compression.on() ? make_compressed_ps_local(plan, layout)
                                              : make_ps_local(layout);
      if (plan.training.compression.on()) return make_compressed_ps(plan, layout);
      return make_ps(layout);
  }
  return nullptr;
}

}  // namespace scaleout::core
