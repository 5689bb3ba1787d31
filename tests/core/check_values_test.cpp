// The executed runs' known values: every partial sum a strategy can form stays an integer the
// gradient's precision holds exactly, and values still tell the ranks apart where they can.
#include "core/programs/check_values.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/plan/input_error.hpp"

namespace scaleout::core {
namespace {

TEST(CheckValues, Fp32KeepsDistinctValuesPerRank) {
  CheckValues v(16, 1, "fp32");
  EXPECT_FLOAT_EQ(v.value(0, 0), 1);
  EXPECT_FLOAT_EQ(v.value(15, 4), 16 * 5);
  EXPECT_FLOAT_EQ(v.sum(4), 136 * 5);  // 1 + ... + 16, times 5
}

TEST(CheckValues, EveryTotalStaysWithinThePrecisionsExactIntegers) {
  for (const char* precision : {"fp32", "fp16", "bf16"})
    for (int workers : {1, 2, 7, 16, 64, 200})
      for (int rounds : {1, 10}) {
        if (static_cast<long>(workers) * rounds > exact_integer_limit(precision)) continue;
        CheckValues v(workers, rounds, precision);
        for (std::int64_t i = 0; i < 10; ++i) {
          EXPECT_LE(v.sum(i) * rounds, exact_integer_limit(precision))
              << precision << " " << workers;
          EXPECT_GE(v.value(workers - 1, i), 1);
        }
      }
}

TEST(CheckValues, TooManyContributionsForThePrecisionAreRefused) {
  EXPECT_THROW(CheckValues(300, 1, "bf16"), InputError);
  EXPECT_THROW(CheckValues(100, 30, "fp16"), InputError);
  EXPECT_NO_THROW(CheckValues(300, 1, "fp16"));
}

}  // namespace
}  // namespace scaleout::core
