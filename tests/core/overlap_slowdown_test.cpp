// Compute beside overlapped collectives (core/model/overlap_slowdown.hpp), derived by hand.
#include "core/model/overlap_slowdown.hpp"

#include <gtest/gtest.h>

namespace scaleout::core {
namespace {

// Compute of 2 s slowed by 1/4 while collectives run: at 4/5 of its rate.
// - Beside 1 s: 0.8 s of work done in it, 1.2 s left at full rate: ends at 2.2 s (0.2 added).
// - Beside 2.4 s: 1.92 s done, 0.08 s left: ends at 2.48 s.
// - Beside 5 s: all of it slowed, 2.5 s (0.5 added), and the collectives end last, at 5 s.
TEST(OverlapSlowdown, ComputeRunsSlowerOnlyWhileCollectivesRun) {
  EXPECT_NEAR(overlap_penalty(2, 1, 0.25), 0.2, 1e-12);
  EXPECT_NEAR(span_beside(2, 1, 0.25), 2.2, 1e-12);
  EXPECT_NEAR(span_beside(2, 2.4, 0.25), 2.48, 1e-12);
  EXPECT_NEAR(overlap_penalty(2, 5, 0.25), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(span_beside(2, 5, 0.25), 5);
}

TEST(OverlapSlowdown, NothingBesideOrNoSlowdownAddsNothing) {
  EXPECT_EQ(overlap_penalty(2, 0, 0.25), 0);
  EXPECT_EQ(overlap_penalty(0, 3, 0.25), 0);
  EXPECT_EQ(overlap_penalty(2, 3, 0), 0);
  EXPECT_DOUBLE_EQ(span_beside(2, 1, 0), 2);
  EXPECT_DOUBLE_EQ(span_beside(2, 3, 0), 3);
}

}  // namespace
}  // namespace scaleout::core
