#include "core/programs/strategies/ring_phases.hpp"

#include "core/programs/strategy.hpp"

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

// Elements of segment i of `span` split in n.
std::int64_t segment(Span span, int n, int i) { return split_part(span, n, wrap(i, n)).count; }

}  // namespace

// The reduce-scatter sends every segment but p + 1 and receives every segment but p; the
// all-gather sends every segment but p + 2 and receives every segment but p + 1.
Fabric::StepTotals ring_reduce_scatter_totals(const RingGroup& g, Span span) {
  int n = g.size(), p = g.position;
  std::int64_t recv = span.count - segment(span, n, p);
  return {span.count - segment(span, n, p + 1), recv, recv};
}

Fabric::StepTotals ring_allgather_totals(const RingGroup& g, Span span) {
  int n = g.size(), p = g.position;
  return {span.count - segment(span, n, p + 2), span.count - segment(span, n, p + 1)};
}

RingGroup ring_through(const std::vector<int>& members, int position) {
  int n = static_cast<int>(members.size());
  return {n, position, members[wrap(position - 1, n)], members[wrap(position + 1, n)]};
}

RingGroup strided_ring(int first, int stride, int count, int position) {
  return {count, position, first + wrap(position - 1, count) * stride,
          first + wrap(position + 1, count) * stride};
}

int owned_segment(const RingGroup& group) { return (group.position + 1) % group.size(); }

void ring_reduce_scatter(Fabric& fabric, const RingGroup& group, Span span) {
  if (group.size() < 2) return;
  fabric.exchange_run(
      group.right(), group.left(), group.size() - 1,
      [&](int s) { return reduce_scatter_step(group, span, s); },
      ring_reduce_scatter_totals(group, span));
}

void ring_allgather(Fabric& fabric, const RingGroup& group, Span span) {
  if (group.size() < 2) return;
  fabric.exchange_run(
      group.right(), group.left(), group.size() - 1,
      [&](int s) { return allgather_step(group, span, s); }, ring_allgather_totals(group, span));
}

void ring_allreduce(Fabric& fabric, const RingGroup& group, Span span) {
  ring_allreduces(fabric, group, span, 1);
}

void ring_allreduces(Fabric& fabric, const RingGroup& group, Span span, int times) {
  int n = group.size();
  if (n < 2 || times < 1) return;
  Fabric::StepTotals rs = ring_reduce_scatter_totals(group, span);
  Fabric::StepTotals ag = ring_allgather_totals(group, span);
  int steps = 2 * (n - 1);
  fabric.exchange_run(group.right(), group.left(), times * steps,
                      [&](int i) {
                        int s = i % steps;
                        return s < n - 1 ? reduce_scatter_step(group, span, s)
                                         : allgather_step(group, span, s - (n - 1));
                      },
                      {times * (rs.send + ag.send), times * (rs.recv + ag.recv), times * rs.added});
}

}  // namespace scaleout::core
