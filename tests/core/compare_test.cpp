// Predicted against measured in one place: errors, medians and what validate judges.
#include "core/results/compare.hpp"

#include <gtest/gtest.h>

namespace scaleout::core {
namespace {

RunResult with_steps(std::vector<double> times) {
  RunResult r;
  double sum = 0;
  for (std::size_t s = 0; s < times.size(); ++s) {
    r.steps.push_back({static_cast<int>(s), times[s]});
    sum += times[s];
  }
  r.step_time_s = sum / times.size();
  return r;
}

TEST(Compare, RelativeErrorIsAgainstTheMeasuredValue) {
  EXPECT_NEAR(relative_error(1.1, 1.0), 0.1, 1e-12);
  EXPECT_NEAR(relative_error(0.9, 1.0), -0.1, 1e-12);
  EXPECT_NEAR(relative_error(1.0, 4.0), -0.75, 1e-12);
  EXPECT_DOUBLE_EQ(relative_error(1.0, 0.0), 0.0);
}

TEST(Compare, MedianStepIgnoresOneDisturbedStep) {
  RunResult r = with_steps({1.0, 1.0, 9.0});
  EXPECT_DOUBLE_EQ(median_step(r), 1.0);
  EXPECT_DOUBLE_EQ(judged_step(r, true), 1.0);
  EXPECT_NEAR(judged_step(r, false), 11.0 / 3, 1e-12);
}

TEST(Compare, EveryValueCarriesItsOwnError) {
  RunResult p = with_steps({2.0, 2.0}), m = with_steps({1.0, 4.0});
  p.busbw_Bps = 3e9;
  m.busbw_Bps = 2e9;
  auto values = compare_results(p, m);
  ASSERT_FALSE(values.empty());
  EXPECT_EQ(values[0].name, "step_time_s");
  EXPECT_DOUBLE_EQ(values[0].relative_error, (2.0 - 2.5) / 2.5);
  nlohmann::json j = comparison_json(values);
  EXPECT_DOUBLE_EQ(j["busbw_Bps"]["relative_error"].get<double>(), 0.5);
  EXPECT_FALSE(j["staleness_mean"].contains("relative_error"));
}

}  // namespace
}  // namespace scaleout::core
