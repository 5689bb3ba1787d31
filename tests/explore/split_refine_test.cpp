// Refining the search by simulation: each split's simulated step is the simulator's own answer
// for that plan, the list is ranked by it, and what moved is said.
#include "explore/split_refine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

core::Plan small_plan() { return testing::small_transformer_plan("split-refine", "16GB"); }

TEST(SplitRefine, RanksTheFirstSplitsBySimulatedStep) {
  SplitSearchOptions search_options;
  search_options.top = 14;
  SplitSearch search = search_splits(small_plan(), search_options);
  ASSERT_EQ(search.best.size(), 14u);
  RefineOptions options;
  options.count = 12;
  options.jobs = 2;
  SplitRefinement r = refine_splits(search, options);
  ASSERT_EQ(r.order.size(), 12u);
  std::vector<int> ranks;
  for (const auto& split : r.order) {
    ASSERT_TRUE(split.simulated.has_value()) << split.error;
    ranks.push_back(split.closed_form_rank);
    // The simulator's own answer for that split's plan, run on its own.
    double alone = simulate(search.best[split.closed_form_rank - 1].plan).step_time_s;
    EXPECT_NEAR(split.simulated->step_time_s / alone, 1.0, 1e-9);
  }
  for (std::size_t i = 1; i < r.order.size(); ++i) {
    const auto& a = r.order[i - 1];
    const auto& b = r.order[i];
    // Faster first; within 0.1% of each other, in the closed form's order.
    EXPECT_LE(a.simulated->step_time_s, b.simulated->step_time_s * 1.001) << i;
    if (b.simulated->step_time_s <= a.simulated->step_time_s * 0.999)
      ADD_FAILURE() << "place " << i << " is faster than the place before it";
    if (std::abs(a.simulated->step_time_s / b.simulated->step_time_s - 1) < 1e-6)
      EXPECT_LT(a.closed_form_rank, b.closed_form_rank) << i;
  }
  std::vector<int> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 12; ++i) EXPECT_EQ(sorted[i], i + 1);  // the first 12, each once
  // One line per split that moved, or one saying none did.
  int moved = 0;
  for (int i = 0; i < 12; ++i) moved += ranks[i] != i + 1;
  ASSERT_FALSE(r.changes.empty());
  if (moved == 0) {
    EXPECT_EQ(r.changes.front(), "simulation kept the closed form's order");
  } else {
    EXPECT_EQ(static_cast<int>(r.changes.size()), std::min(moved, 10) + (moved > 10));
    int first = 0;  // the first place that changed is the first line
    while (ranks[first] == first + 1) ++first;
    std::string expect = "#" + std::to_string(ranks[first]) + " by the closed form is #" +
                         std::to_string(first + 1) + " by simulation";
    EXPECT_EQ(r.changes.front().rfind(expect, 0), 0u) << r.changes.front();
  }
}

TEST(SplitRefine, SaysWhySplitsWereNotSimulated) {
  SplitSearchOptions search_options;
  search_options.top = 2;
  SplitSearch search = search_splits(small_plan(), search_options);
  RefineOptions options;
  options.count = 5;  // more than listed: the two listed
  options.sim.max_events = 10;
  SplitRefinement r = refine_splits(search, options);
  ASSERT_EQ(r.order.size(), 2u);
  for (const auto& split : r.order) {
    EXPECT_FALSE(split.simulated.has_value());
    EXPECT_NE(split.error.find("messages"), std::string::npos) << split.error;
  }
  ASSERT_EQ(r.changes.size(), 2u);
  EXPECT_EQ(r.changes[0].rfind("#1 by the closed form was not simulated: ", 0), 0u) << r.changes[0];
}

}  // namespace
}  // namespace scaleout::sim
