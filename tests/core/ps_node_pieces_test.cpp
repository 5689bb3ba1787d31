// How BytePS's layout cuts a bucket (core/programs/strategies/ps_node_pieces.hpp): pieces that
// cover the bucket in order, each inside one server's shard and, on every node, inside the part one
// of the node's own workers holds after the node's reduce-scatter.
#include "core/programs/strategies/ps_node_pieces.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace scaleout::core {
namespace {

RankLayout layout_of(const std::vector<int>& worker_node, int servers) {
  RankLayout l;
  l.workers = static_cast<int>(worker_node.size());
  l.servers = servers;
  l.worker_node = worker_node;
  return l;
}

bool inside(Span piece, Span whole) {
  return whole.begin <= piece.begin && piece.end() <= whole.end();
}

// Two nodes of two over three servers: the node's ring leaves each worker the half after its
// own position's (worker 0 holds [50, 100), worker 1 [0, 50)); shards of 34, 33 and 33 elements.
// Cuts at 34, 50 and 67, counted by hand.
TEST(PsNodePieces, CutsAtEveryPartAndShardBoundary) {
  NodeGroups g = group_by_node(layout_of({0, 0, 1, 1}, 3));
  EXPECT_EQ(node_part(g, Span{0, 100}, 0), (Span{50, 50}));
  EXPECT_EQ(node_part(g, Span{0, 100}, 1), (Span{0, 50}));
  std::vector<NodePiece> pieces = node_pieces(g, Span{0, 100}, 3);
  ASSERT_EQ(pieces.size(), 4u);
  const std::pair<Span, int> expected[] = {
      {Span{0, 34}, 0}, {Span{34, 16}, 1}, {Span{50, 17}, 1}, {Span{67, 33}, 2}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(pieces[i].span, expected[i].first) << i;
    EXPECT_EQ(pieces[i].server, expected[i].second) << i;
  }
  EXPECT_EQ(pieces[0].owners, (std::vector<int>{1, 3}));
  EXPECT_EQ(pieces[3].owners, (std::vector<int>{0, 2}));
}

// Nodes of different sizes (3, 2 and 1 workers), a bucket that starts inside the gradient, and
// more servers than some parts: every piece must still lie in one shard and one part a node.
TEST(PsNodePieces, EveryPieceLiesInOneShardAndOnePartOfEachNode) {
  std::vector<int> worker_node{0, 0, 0, 1, 1, 2};
  NodeGroups g = group_by_node(layout_of(worker_node, 4));
  for (Span bucket : {Span{1000, 1000}, Span{7, 5}, Span{0, 3}}) {
    std::vector<NodePiece> pieces = node_pieces(g, bucket, 4);
    std::int64_t at = bucket.begin;
    for (const NodePiece& p : pieces) {
      EXPECT_EQ(p.span.begin, at);
      EXPECT_GT(p.span.count, 0);
      at = p.span.end();
      EXPECT_TRUE(inside(p.span, split_part(bucket, 4, p.server)));
      ASSERT_EQ(p.owners.size(), 3u);
      for (int n = 0; n < 3; ++n) {
        EXPECT_EQ(worker_node[p.owners[n]], n);
        EXPECT_TRUE(inside(p.span, node_part(g, bucket, p.owners[n])));
      }
    }
    EXPECT_EQ(at, bucket.end());
  }
}

}  // namespace
}  // namespace scaleout::core
