// The all-to-all strategies on real floats between threads: every member's segment for every other
// member arrives in the sender's place, pairwise and in two levels, whatever the nodes' shape.
#include "core/programs/strategies/all_to_all.hpp"

#include <gtest/gtest.h>

#include "tests/support/memory_fabric.hpp"

namespace scaleout::core {
namespace {

constexpr std::int64_t kSegment = 3;

// Each rank's buffer: what it sends (a segment a member), what it receives, the relay.
std::vector<std::vector<float>> exchange(int members, int per_node) {
  std::int64_t whole = members * kSegment;
  return testing::run_ranks_in_memory(
      members, 0, 3 * whole,
      [&](Fabric& fabric) {
        Span send{0, whole}, receive{whole, whole}, relay{2 * whole, whole};
        if (per_node == 0)
          pairwise_all_to_all(fabric, send, receive);
        else
          hierarchical_all_to_all(fabric, per_node, send, receive, relay);
      },
      /*keep_servers=*/false);
}

// Member `to`'s received segment from `from` holds what `from` started with in its segment for
// `to` (initial_value of its place in the sender's buffer); its own segment stays as it was.
void expect_delivered(const std::vector<std::vector<float>>& buffers) {
  int n = static_cast<int>(buffers.size());
  std::int64_t whole = n * kSegment;
  for (int to = 0; to < n; ++to)
    for (int from = 0; from < n; ++from)
      for (std::int64_t e = 0; e < kSegment; ++e) {
        std::int64_t at = whole + from * kSegment + e;
        float expected = from == to ? testing::initial_value(to, at)
                                    : testing::initial_value(from, to * kSegment + e);
        ASSERT_EQ(buffers[to][at], expected) << "member " << to << " from " << from;
      }
}

TEST(AllToAll, PairwiseDeliversEverySegment) { expect_delivered(exchange(8, 0)); }

TEST(AllToAll, HierarchicalDeliversEverySegmentForEveryNodeShape) {
  for (int per_node : {1, 2, 4, 8}) {
    SCOPED_TRACE(per_node);
    expect_delivered(exchange(8, per_node));
  }
  expect_delivered(exchange(6, 3));
  expect_delivered(exchange(6, 2));
}

TEST(AllToAll, MembersPerNodeNeedsEqualRunsOfDistinctNodes) {
  EXPECT_EQ(members_per_node({0, 0, 1, 1, 2, 2}), 2);
  EXPECT_EQ(members_per_node({5, 5, 5, 5}), 4);
  EXPECT_EQ(members_per_node({0, 1, 2}), 1);
  EXPECT_EQ(members_per_node({0, 0, 1}), 0);     // unequal runs
  EXPECT_EQ(members_per_node({0, 1, 0, 1}), 0);  // a node twice
  EXPECT_EQ(members_per_node({0, 0, 1, 1, 0, 0}), 0);
  EXPECT_EQ(members_per_node({}), 0);
}

}  // namespace
}  // namespace scaleout::core
