#include "core/strategies/ring_phases.hpp"

#include "core/strategy.hpp"

namespace scaleout::core {

namespace {

int wrap(int i, int n) { return ((i % n) + n) % n; }

// Step s of the reduce-scatter: send segment p - s, receive and add segment p - s - 1.
void add_reduce_scatter_steps(const RingGroup& g, Span span, std::vector<ExchangeStep>& steps) {
  int n = g.size(), p = g.position;
  for (int s = 0; s < n - 1; ++s)
    steps.push_back({split_part(span, n, wrap(p - s, n)), split_part(span, n, wrap(p - s - 1, n)),
                     Combine::kAdd});
}

// Step s of the all-gather: send segment p + 1 - s, receive segment p - s.
void add_allgather_steps(const RingGroup& g, Span span, std::vector<ExchangeStep>& steps) {
  int n = g.size(), p = g.position;
  for (int s = 0; s < n - 1; ++s)
    steps.push_back({split_part(span, n, wrap(p + 1 - s, n)), split_part(span, n, wrap(p - s, n)),
                     Combine::kReplace});
}

}  // namespace

int owned_segment(const RingGroup& group) { return (group.position + 1) % group.size(); }

void ring_reduce_scatter(Fabric& fabric, const RingGroup& group, Span span) {
  if (group.size() < 2) return;
  std::vector<ExchangeStep> steps;
  add_reduce_scatter_steps(group, span, steps);
  fabric.exchange_steps(group.right(), group.left(), steps);
}

void ring_allgather(Fabric& fabric, const RingGroup& group, Span span) {
  if (group.size() < 2) return;
  std::vector<ExchangeStep> steps;
  add_allgather_steps(group, span, steps);
  fabric.exchange_steps(group.right(), group.left(), steps);
}

void ring_allreduce(Fabric& fabric, const RingGroup& group, Span span) {
  if (group.size() < 2) return;
  std::vector<ExchangeStep> steps;
  add_reduce_scatter_steps(group, span, steps);
  add_allgather_steps(group, span, steps);
  fabric.exchange_steps(group.right(), group.left(), steps);
}

}  // namespace scaleout::core
