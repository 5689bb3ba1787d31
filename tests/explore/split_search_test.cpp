// The search over splits: what it ranks first is not beaten by any split it evaluated, nothing it
// lists exceeds the device's memory, and what it leaves out is counted.
#include "explore/split_search.hpp"

#include <gtest/gtest.h>

#include "analytic/analytic.hpp"
#include "core/input_error.hpp"
#include "core/model_memory.hpp"
#include "core/plan_loader.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

core::Plan small_plan(const std::string& memory) {
  return testing::small_transformer_plan("split-search-" + memory, memory);
}

TEST(SplitSearch, NoEvaluatedSplitBeatsTheFirst) {
  core::Plan plan = small_plan("16GB");
  SplitSearchOptions options;
  options.top = 1000000;  // every split that fits
  SplitSearch all = search_splits(plan, options);
  ASSERT_FALSE(all.best.empty());
  EXPECT_EQ(static_cast<long>(all.best.size()), all.evaluated);
  double first = all.best.front().result.step_time_s;
  for (const auto& c : all.best) {
    // Each listed split predicts the same step on its own, fits, and is no faster than the first.
    EXPECT_NEAR(predict_analytic(c.plan).step_time_s, c.result.step_time_s, 1e-12);
    EXPECT_EQ(core::does_not_fit(c.plan), "");
    EXPECT_GE(c.result.step_time_s, first);
  }
  // The top 3 are the first 3 of everything.
  options.top = 3;
  SplitSearch top = search_splits(plan, options);
  ASSERT_EQ(top.best.size(), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_DOUBLE_EQ(top.best[i].result.step_time_s, all.best[i].result.step_time_s);
  EXPECT_FALSE(top.best[0].bottleneck.empty());
}

TEST(SplitSearch, CountsWhatDoesNotFit) {
  SplitSearch roomy = search_splits(small_plan("80GB"));
  SplitSearch tight = search_splits(small_plan("4GB"));
  long left_out = tight.dropped["does not fit in the device's memory"];
  EXPECT_GT(left_out, 0);
  EXPECT_EQ(roomy.dropped.count("does not fit in the device's memory"), 0u);
  // The same splits, split differently between evaluated and left out.
  long roomy_total = roomy.evaluated, tight_total = tight.evaluated + left_out;
  for (const auto& [why, n] : roomy.dropped) roomy_total += n;
  for (const auto& [why, n] : tight.dropped)
    if (why != "does not fit in the device's memory") tight_total += n;
  EXPECT_EQ(roomy_total, tight_total);
  SplitSearch none = search_splits(small_plan("0.1GB"));
  EXPECT_TRUE(none.best.empty());
}

// The margin leaves a share of the memory free: every split listed needs at most (1 - margin) of
// it, and a wider margin leaves more out.
TEST(SplitSearch, TheMemoryMarginLeavesItsShareFree) {
  core::Plan plan = small_plan("4GB");
  SplitSearchOptions options;
  options.top = 1000000;
  for (double margin : {0.0, 0.1, 0.5}) {
    options.memory_margin = margin;
    SplitSearch s = search_splits(plan, options);
    ASSERT_FALSE(s.best.empty()) << margin;
    for (const auto& c : s.best)
      EXPECT_LE(c.result.model_parallel->memory.total, (1 - margin) * 4e9) << margin;
  }
  options.memory_margin = 0;
  long none = search_splits(plan, options).dropped["does not fit in the device's memory"];
  options.memory_margin = 0.5;
  long half = search_splits(plan, options).dropped["does not fit in the device's memory"];
  EXPECT_GT(half, none);
}

// A model small enough for data parallelism alone: on a fast network nothing beats it; with the
// NIC 100x slower the data-parallel exchange dominates and the best split moves to tensor or
// pipeline groups, which shrink it; and back when the network is fast again.
TEST(SplitSearch, TheBestSplitFollowsTheNetwork) {
  core::Plan plan = small_plan("80GB");
  plan.cluster.nic.bandwidth *= 10;  // 1 Tb/s
  auto model_parallel_degree = [](const core::Plan& p) {
    const auto& m = *search_splits(p).best.front().result.model_parallel;
    return m.tensor * m.pipeline;
  };
  EXPECT_EQ(model_parallel_degree(plan), 1);
  core::Plan slow = plan;
  slow.cluster.nic.bandwidth /= 100;
  EXPECT_GT(model_parallel_degree(slow), 1);
  slow.cluster.nic.bandwidth *= 100;
  EXPECT_EQ(model_parallel_degree(slow), 1);
}

TEST(SplitSearch, RefusesAWorkloadWithoutDimensions) {
  core::Plan plan = testing::collective_plan(testing::switch_cluster(4, 1e9, 1e-6),
                                             core::StrategyKind::kRing, 4, 1000);
  EXPECT_THROW(search_splits(plan), core::InputError);
}

}  // namespace
}  // namespace scaleout::sim
