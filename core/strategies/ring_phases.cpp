#include "core/strategies/ring_phases.hpp"

#include "core/strategy.hpp"

namespace scaleout::core {

namespace {

int wrap(int i, int n) { return ((i % n) + n) % n; }

// Step s of the reduce-scatter: send segment p - s, receive and add segment p - s - 1.
ExchangeStep reduce_scatter_step(const RingGroup& g, Span span, int s) {
  int n = g.size(), p = g.position;
  return {split_part(span, n, wrap(p - s, n)), split_part(span, n, wrap(p - s - 1, n)),
          Combine::kAdd};
}

// Step s of the all-gather: send segment p + 1 - s, receive segment p - s.
ExchangeStep allgather_step(const RingGroup& g, Span span, int s) {
  int n = g.size(), p = g.position;
  return {split_part(span, n, wrap(p + 1 - s, n)), split_part(span, n, wrap(p - s, n)),
          Combine::kReplace};
}

}  // namespace

int owned_segment(const RingGroup& group) { return (group.position + 1) % group.size(); }

void ring_reduce_scatter(Fabric& fabric, const RingGroup& group, Span span) {
  if (group.size() < 2) return;
  fabric.exchange_steps(group.right(), group.left(), group.size() - 1,
                        [&](int s) { return reduce_scatter_step(group, span, s); });
}

void ring_allgather(Fabric& fabric, const RingGroup& group, Span span) {
  if (group.size() < 2) return;
  fabric.exchange_steps(group.right(), group.left(), group.size() - 1,
                        [&](int s) { return allgather_step(group, span, s); });
}

void ring_allreduce(Fabric& fabric, const RingGroup& group, Span span) {
  int n = group.size();
  if (n < 2) return;
  fabric.exchange_steps(group.right(), group.left(), 2 * (n - 1), [&](int s) {
    return s < n - 1 ? reduce_scatter_step(group, span, s)
                     : allgather_step(group, span, s - (n - 1));
  });
}

}  // namespace scaleout::core
