#include "core/units.hpp"

#include <gtest/gtest.h>

namespace scaleout::core {
namespace {

TEST(Units, BitsAndBytesAreNeverMixed) {
  EXPECT_DOUBLE_EQ(*parse_quantity("100Gbps", Quantity::kBandwidth), 12.5e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("100Gb/s", Quantity::kBandwidth), 12.5e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("25GB/s", Quantity::kBandwidth), 25e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("25GBps", Quantity::kBandwidth), 25e9);
  EXPECT_FALSE(parse_quantity("200mbit", Quantity::kBandwidth)) << "mbit is not a unit we accept";
}

TEST(Units, TimesSizesRatesAndCounts) {
  EXPECT_DOUBLE_EQ(*parse_quantity("1.5us", Quantity::kTime), 1.5e-6);
  EXPECT_DOUBLE_EQ(*parse_quantity("2ms", Quantity::kTime), 2e-3);
  EXPECT_DOUBLE_EQ(*parse_quantity("4MiB", Quantity::kBytes), 4.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_quantity("64MB", Quantity::kBytes), 64e6);
  EXPECT_DOUBLE_EQ(*parse_quantity("312TFLOPS", Quantity::kFlops), 312e12);
  EXPECT_DOUBLE_EQ(*parse_quantity("12.3GFLOP", Quantity::kFlop), 12.3e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("25.6M", Quantity::kCount), 25.6e6);
  EXPECT_DOUBLE_EQ(*parse_quantity("1200", Quantity::kCount), 1200);
}

TEST(Units, RejectsWrongKindsAndGarbage) {
  EXPECT_FALSE(parse_quantity("100", Quantity::kBandwidth));
  EXPECT_FALSE(parse_quantity("10GB", Quantity::kBandwidth));
  EXPECT_FALSE(parse_quantity("fast", Quantity::kTime));
  EXPECT_FALSE(parse_quantity("1us", Quantity::kBytes));
  EXPECT_FALSE(parse_quantity("", Quantity::kCount));
  EXPECT_FALSE(parse_quantity("3Q", Quantity::kCount));
}

}  // namespace
}  // namespace scaleout::core
