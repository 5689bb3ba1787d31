// Ring building blocks shared by the ring-family strategies: reduce-scatter, all-gather and
// all-reduce over an ordered group of ranks, bandwidth-optimal (each rank sends 2(n-1)/n of the
// span).
#pragma once

#include <vector>

#include "core/fabric.hpp"

namespace scaleout::core {

// An ordered ring of ranks and this rank's position in it.
struct RingGroup {
  std::vector<int> members;
  int position = 0;
  int size() const { return static_cast<int>(members.size()); }
  int right() const { return members[(position + 1) % size()]; }
  int left() const { return members[(position + size() - 1) % size()]; }
};

// After the call, this rank holds the group's sum of segment `owned_segment(group)` of `span`.
void ring_reduce_scatter(Fabric& fabric, const RingGroup& group, Span span);
// Index of the segment a rank owns after ring_reduce_scatter.
int owned_segment(const RingGroup& group);
// REQUIRES: each rank holds its owned segment; afterwards every rank holds all of `span`.
void ring_allgather(Fabric& fabric, const RingGroup& group, Span span);
// Reduce-scatter then all-gather, issued as one run of 2(n-1) steps with fixed peers.
void ring_allreduce(Fabric& fabric, const RingGroup& group, Span span);

}  // namespace scaleout::core
