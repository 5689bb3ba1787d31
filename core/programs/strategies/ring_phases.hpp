// Ring building blocks shared by the ring-family strategies: reduce-scatter, all-gather and
// all-reduce over an ordered group of ranks, bandwidth-optimal (each rank sends 2(n-1)/n of the
// span).
#pragma once

#include <vector>

#include "core/programs/fabric.hpp"

namespace scaleout::core {

// An ordered ring of ranks as one member sees it: the ring's size, this member's position and its
// two neighbours (a ring of 16,384 ranks needs no list of them per rank and bucket).
struct RingGroup {
  int count = 0;
  int position = 0;
  int left_rank = -1, right_rank = -1;
  int size() const { return count; }
  int right() const { return right_rank; }
  int left() const { return left_rank; }
};

// The ring through `members` in order, seen from the member at `position`.
RingGroup ring_through(const std::vector<int>& members, int position);
// The ring of the `count` ranks first, first + stride, ..., seen from the one at `position`.
RingGroup strided_ring(int first, int stride, int count, int position);

// After the call, this rank holds the group's sum of segment `owned_segment(group)` of `span`.
void ring_reduce_scatter(Fabric& fabric, const RingGroup& group, Span span);
// Index of the segment a rank owns after ring_reduce_scatter.
int owned_segment(const RingGroup& group);
// REQUIRES: each rank holds its owned segment; afterwards every rank holds all of `span`.
void ring_allgather(Fabric& fabric, const RingGroup& group, Span span);
// Elements this rank sends and receives in all over a reduce-scatter or an all-gather (O(1)).
Fabric::StepTotals ring_reduce_scatter_totals(const RingGroup& group, Span span);
Fabric::StepTotals ring_allgather_totals(const RingGroup& group, Span span);
// Reduce-scatter then all-gather, issued as one run of 2(n-1) steps with fixed peers.
void ring_allreduce(Fabric& fabric, const RingGroup& group, Span span);
// `times` all-reduces of `span` one after the other, issued as one run of times x 2(n-1) steps
// (a layer's tensor all-reduces: a fabric that models runs in aggregate then models them as one).
void ring_allreduces(Fabric& fabric, const RingGroup& group, Span span, int times);

}  // namespace scaleout::core
