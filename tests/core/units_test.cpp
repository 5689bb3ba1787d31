#include "core/units.hpp"

#include <gtest/gtest.h>

#include <string>

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

TEST(Units, RefusesValuesThatAreNotFinite) {
  std::string why;
  EXPECT_FALSE(parse_quantity("1e308GB/s", Quantity::kBandwidth, &why)) << "overflows once scaled";
  EXPECT_EQ(why, "not finite");
  EXPECT_FALSE(parse_quantity("1e400", Quantity::kCount, &why));
  EXPECT_EQ(why, "not finite");
  EXPECT_FALSE(parse_quantity("1e300P", Quantity::kCount));
  EXPECT_FALSE(parse_quantity(".nan", Quantity::kCount, &why));
  EXPECT_EQ(why, "not a unit");
  EXPECT_FALSE(parse_quantity("inf", Quantity::kTime));
  EXPECT_FALSE(parse_quantity("nans", Quantity::kTime));
  EXPECT_DOUBLE_EQ(*parse_quantity("1e300B/s", Quantity::kBandwidth), 1e300) << "large but finite";
}

}  // namespace
}  // namespace scaleout::core
