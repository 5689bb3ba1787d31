// Pipelined reduce and broadcast over trees of ranks, as one rank takes part in them. The span of
// each tree is cut into whole `chunk`s and a last remainder, and the chunks move in steps: in a
// reduce a rank of height h (the longest way down to a leaf, in links) sends chunk k to its parent
// at step k + h; in a broadcast a rank at depth d (links from the root) takes chunk k from its
// parent at step k + d - 1 and passes it to its children at step k + d. A rank posts all of a
// step's transfers, of every tree it is in, before it waits for them: so several trees run at
// once without one waiting on another (two trees that link the same two nodes in opposite
// directions would otherwise each wait for the other's chunk), and the levels of a tree work on
// successive chunks at once. Used by the tree (two binary trees across nodes, chains inside them)
// and by the strategies that reduce into a node's leader and broadcast from it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/programs/fabric.hpp"

namespace scaleout::core {

// This rank's place in one tree, and the part of the gradient that tree carries.
struct TreeRole {
  Span span;
  int parent = -1;            // -1: the root
  std::vector<int> children;  // ranks
  // Reduce: this rank's height and its children's (same order as `children`).
  int height = 0;
  std::vector<int> child_heights;
  // Broadcast: this rank's depth.
  int depth = 0;
};

// Chunks of at most `chunk` elements that `span` is cut into (0 for an empty span).
std::int64_t chunks_of(Span span, std::int64_t chunk);

// Afterwards each tree's root holds the sum of its span over the tree. REQUIRES: every rank of
// the trees calls it with matching roles (the same trees, spans, heights and chunk).
void pipelined_reduce(Fabric& fabric, const std::vector<TreeRole>& roles, std::int64_t chunk);

// Afterwards every rank of a tree holds its root's span.
void pipelined_broadcast(Fabric& fabric, const std::vector<TreeRole>& roles, std::int64_t chunk);

}  // namespace scaleout::core
