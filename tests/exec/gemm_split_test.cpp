// The GPU compute phase's arithmetic (how many operations become which matrix products), checked
// without a GPU.
#include "exec/cuda/gemm_split.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace scaleout::exec {
namespace {

constexpr int kTile = 4096, kStep = 16;
const double kPerTile = 2.0 * 4096 * 4096 * 4096;

TEST(GemmSplit, WholeTilesAndARoundedThinProduct) {
  GemmSplit three = split_gemms(3 * kPerTile, kTile, kStep);
  EXPECT_EQ(three.full_tiles, 3);
  EXPECT_EQ(three.rest_k, 0);
  // 2 tiles and a rest of 2 * 4096^2 * 100 = 2 * 1024^2 * 1600 operations: a cube root of about
  // 1189 makes a side of 1024 (the multiple of 256 below it) and k = 1600.
  GemmSplit some = split_gemms(2 * kPerTile + 2.0 * 4096 * 4096 * 100, kTile, kStep);
  EXPECT_EQ(some.full_tiles, 2);
  EXPECT_EQ(some.rest_side, 1024);
  EXPECT_EQ(some.rest_k, 1600);
  // A small phase: one 256 x 256 x k product, k a multiple of 16: 1e8 / (2 * 256^2 * 16) = 47.7
  // slices of 16 -> 48 -> k = 768.
  GemmSplit small = split_gemms(1e8, kTile, kStep);
  EXPECT_EQ(small.full_tiles, 0);
  EXPECT_EQ(small.rest_side, 256);
  EXPECT_EQ(small.rest_k, 768);
  // Just under a whole tile rounds up to it, never to a product of k = tile.
  GemmSplit almost = split_gemms(kPerTile - 1, kTile, kStep);
  EXPECT_EQ(almost.full_tiles, 1);
  EXPECT_EQ(almost.rest_k, 0);
}

TEST(GemmSplit, NothingForNothingOrNonsense) {
  for (double flops :
       {0.0, -1.0, 2.0 * 256 * 256 * 16 * 0.49, std::numeric_limits<double>::quiet_NaN(),
        std::numeric_limits<double>::infinity()}) {
    GemmSplit s = split_gemms(flops, kTile, kStep);
    EXPECT_EQ(s.full_tiles, 0) << flops;
    EXPECT_EQ(s.rest_k, 0) << flops;
    EXPECT_EQ(s.flops(kTile), 0) << flops;
  }
}

TEST(GemmSplit, QueuedOperationsWithinHalfASliceOfTheAsked) {
  for (double flops = 1e6; flops < 1e15; flops *= 1.37) {
    GemmSplit s = split_gemms(flops, kTile, kStep);
    EXPECT_EQ(s.rest_k % kStep, 0);
    EXPECT_EQ(s.rest_side % 256, 0);
    EXPECT_LE(s.rest_side * s.rest_k, std::int64_t{kTile} * kTile) << "A must fit its buffer";
    EXPECT_LE(s.rest_side, kTile);
    // Half a slice of the last product's own side, not the coarsest.
    double slice = 2.0 * s.rest_side * s.rest_side * kStep;
    EXPECT_LE(std::abs(s.flops(kTile) - flops), std::max(slice, 2.0 * 256 * 256 * kStep) / 2 + 1)
        << flops;
  }
}

}  // namespace
}  // namespace scaleout::exec
