// How the parameter server aggregated per node (BytePS's layout) cuts a bucket: after a node's
// reduce-scatter each of its workers holds the node's sum of one part, and pushes what of it lies
// in each server's shard. Compressed, every contribution a server combines must cover the same
// elements on every node, so the bucket is cut at every boundary of every worker's part and of
// every shard: each piece lies in one shard and, on every node, in one worker's part.
#pragma once

#include <vector>

#include "core/programs/strategies/node_groups.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

// The part of `bucket` worker w holds, summed over its node, after the node's ring
// reduce-scatter (core/programs/strategies/ring_phases.hpp's segment ownership).
Span node_part(const NodeGroups& g, Span bucket, int w);

struct NodePiece {
  Span span;
  int server = 0;           // the shard it lies in
  std::vector<int> owners;  // by node: the worker holding the node's sum of it
};

// The pieces of `bucket` over `servers` shards, in element order, empty pieces left out.
std::vector<NodePiece> node_pieces(const NodeGroups& g, Span bucket, int servers);

}  // namespace scaleout::core
