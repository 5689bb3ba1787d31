// Rabenseifner's all-reduce over a group of ranks: reduce-scatter by recursive halving, all-gather
// by recursive doubling, partners at distance 1, 2, 4, ... first. A group whose size is not a
// power of two first folds its first 2*extra members pairwise (odd onto even) and unfolds after.
#pragma once

#include <functional>

#include "core/programs/fabric.hpp"

namespace scaleout::core {

// The largest power of two at most `count`.
int halving_doubling_core(int count);

// All-reduce of `span` over the `count` members of a group; member i is rank rank_of(i) and this
// rank is member `position`. REQUIRES: every member calls it with the same count, rank_of, span.
void halving_doubling_allreduce(Fabric& fabric, int count, int position,
                                const std::function<int(int)>& rank_of, Span span);

}  // namespace scaleout::core
