#include "core/reliability/slowdown.hpp"

#include <gtest/gtest.h>

namespace scaleout::core {
namespace {

Stragglers exponential(double mean, std::uint64_t seed) {
  Stragglers s;
  s.random = SlowdownKind::kExponential;
  s.mean = mean;
  s.seed = seed;
  return s;
}

TEST(Slowdown, SameSeedSameFactorsDifferentSeedDifferentPattern) {
  Slowdown a(exponential(0.3, 7)), b(exponential(0.3, 7)), c(exponential(0.3, 8));
  int differ = 0;
  for (int w = 0; w < 16; ++w)
    for (int s = 0; s < 16; ++s) {
      EXPECT_DOUBLE_EQ(a.factor(w, s), b.factor(w, s));
      differ += a.factor(w, s) != c.factor(w, s);
    }
  EXPECT_GT(differ, 200);
}

TEST(Slowdown, DistributionsHaveTheirMeans) {
  Slowdown e(exponential(0.5, 3));
  Stragglers bs;
  bs.random = SlowdownKind::kBernoulli;
  bs.probability = 0.2;
  bs.factor = 3;
  Slowdown b(bs);
  double se = 0, sb = 0;
  int n = 0;
  for (int w = 0; w < 200; ++w)
    for (int s = 0; s < 200; ++s, ++n) {
      EXPECT_GE(e.factor(w, s), 1.0);
      se += e.factor(w, s);
      sb += b.factor(w, s);
    }
  EXPECT_NEAR(se / n, 1.5, 0.02);
  EXPECT_NEAR(sb / n, 1 + 0.2 * 2, 0.02);
}

TEST(Slowdown, FixedSlowWorkersMultiplyTheRandomPart) {
  Stragglers s = exponential(0.1, 1);
  s.slow_workers = {2};
  s.slow_factor = 4;
  Slowdown d(s);
  EXPECT_DOUBLE_EQ(d.factor(2, 5), 4 * d.random_factor(2, 5));
  EXPECT_DOUBLE_EQ(d.factor(1, 5), d.random_factor(1, 5));
  EXPECT_DOUBLE_EQ(Slowdown(Stragglers{}).factor(0, 0), 1.0);
}

}  // namespace
}  // namespace scaleout::core
