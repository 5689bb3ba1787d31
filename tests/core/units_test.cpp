#include "core/plan/units.hpp"

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

TEST(Units, CountsTakeBillionsAndTrillions) {
  EXPECT_DOUBLE_EQ(*parse_quantity("70B", Quantity::kCount), 70e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("1.5T", Quantity::kCount), 1.5e12);
  EXPECT_DOUBLE_EQ(*parse_quantity("175G", Quantity::kCount), 175e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("100B", Quantity::kBytes), 100) << "B stays bytes for sizes";
  EXPECT_FALSE(parse_quantity("70b", Quantity::kCount));
  EXPECT_FALSE(parse_quantity("70GB", Quantity::kCount));
}

TEST(Units, TimesTakeMinutesHoursAndDays) {
  EXPECT_DOUBLE_EQ(*parse_quantity("90min", Quantity::kTime), 5400);
  EXPECT_DOUBLE_EQ(*parse_quantity("1.5h", Quantity::kTime), 5400);
  EXPECT_DOUBLE_EQ(*parse_quantity("2d", Quantity::kTime), 172800);
  EXPECT_DOUBLE_EQ(*parse_quantity("90 min", Quantity::kTime), 5400);
  EXPECT_DOUBLE_EQ(*parse_quantity("2ms", Quantity::kTime), 2e-3) << "ms stays milliseconds";
  EXPECT_FALSE(parse_quantity("2m", Quantity::kTime)) << "neither minutes nor a prefix";
  EXPECT_FALSE(parse_quantity("2mins", Quantity::kTime));
  EXPECT_FALSE(parse_quantity("2mh", Quantity::kTime));
  EXPECT_FALSE(parse_quantity("2kd", Quantity::kTime));
  EXPECT_FALSE(parse_quantity("2H", Quantity::kTime));
}

TEST(Units, SecondsAreABareNumberOrATime) {
  EXPECT_DOUBLE_EQ(*parse_seconds("86400"), 86400);
  EXPECT_DOUBLE_EQ(*parse_seconds("1.5h"), 5400);
  EXPECT_DOUBLE_EQ(*parse_seconds("90ms"), 0.09);
  EXPECT_FALSE(parse_seconds("6M")) << "a count suffix is not a time";
  EXPECT_FALSE(parse_seconds("1B"));
  EXPECT_FALSE(parse_seconds("1e400"));
  EXPECT_FALSE(parse_seconds(""));
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
