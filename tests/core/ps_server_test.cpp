// The bounded-staleness admission rule on its own, case by case.
#include "core/programs/strategies/ps_server.hpp"

#include <gtest/gtest.h>

namespace scaleout::core {
namespace {

TEST(StalenessBound, NoBoundOrNothingInFlightAlwaysAdmits) {
  EXPECT_TRUE(staleness_bound_admits(-1, 100, {0, 0, 0}));
  EXPECT_TRUE(staleness_bound_admits(0, 7, {}));
}

TEST(StalenessBound, APullWaitsWhileAGradientInFlightCouldPassTheBound) {
  // Version 5, one gradient in flight computed on version 4: one more pull could make it
  // 5 + 1 - 4 = 2 versions stale.
  EXPECT_TRUE(staleness_bound_admits(2, 5, {4}));
  EXPECT_FALSE(staleness_bound_admits(1, 5, {4}));
  // The oldest gradient in flight decides.
  EXPECT_FALSE(staleness_bound_admits(4, 5, {2, 5}));  // 5 + 2 - 2 = 5 > 4
  EXPECT_TRUE(staleness_bound_admits(5, 5, {2, 5}));
}

TEST(StalenessBound, NoMoreGradientsInFlightThanTheBound) {
  EXPECT_FALSE(staleness_bound_admits(1, 5, {5, 5}));
  EXPECT_TRUE(staleness_bound_admits(2, 5, {5, 5}));
}

}  // namespace
}  // namespace scaleout::core
