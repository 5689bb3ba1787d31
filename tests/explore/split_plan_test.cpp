// The smallest cluster for a target with its best split: held to searching every whole-node count.
#include "explore/split_plan.hpp"

#include <gtest/gtest.h>

#include <map>

#include "analytic/analytic.hpp"
#include "core/plan/input_error.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

// 192 sequences a step: data degrees with a factor 3 divide it, so counts between the doublings
// (24, 48, 96, ... workers) have splits too.
core::Plan small_plan() {
  core::Plan plan = testing::small_transformer_plan("split-plan", "16GB");
  plan.training.global_batch = 192;
  return plan;
}

// The best split's sequences/s at `workers`, searched directly (0: no split there).
double best_at(const core::Plan& plan, int workers) {
  core::Plan at = plan;
  at.training.workers = workers;
  at.parallelism.reset();
  SplitSearchOptions one;
  one.top = 1;
  SplitSearch s = search_splits(at, one);
  return s.best.empty() ? 0 : s.best.front().result.throughput_samples_per_s;
}

TEST(SplitPlan, TheAnswerIsTheSmallestWholeNodeCountThatReachesTheTarget) {
  core::Plan plan = small_plan();  // 8 devices a node
  std::map<int, double> best;
  for (int n = 8; n <= 256; n += 8) best[n] = best_at(plan, n);
  // A target first reached between two doublings: the best of the first count that is not a
  // doubling and beats every smaller count.
  double target = 0, faster_than = 0;
  for (auto [n, t] : best) {
    bool doubling = (n & (n - 1)) == 0;
    if (!doubling && t > faster_than) {
      target = t;
      break;
    }
    faster_than = std::max(faster_than, t);
  }
  ASSERT_GT(target, 0);
  int smallest = 0;
  for (auto [n, t] : best)
    if (t >= target) {
      smallest = n;
      break;
    }
  SplitPlanRequest request;
  request.sequences_per_s = target;
  request.max_workers = 256;
  request.price_per_device_hour = 2.0;
  SplitPlanAnswer a = smallest_split_cluster(plan, request);
  ASSERT_TRUE(a.reachable) << a.message;
  EXPECT_EQ(a.workers, smallest) << a.message;
  EXPECT_NE(smallest & (smallest - 1), 0) << "not a doubling";
  ASSERT_FALSE(a.search.best.empty());
  const SplitCandidate& c = a.search.best.front();
  EXPECT_EQ(c.plan.training.workers, smallest);
  EXPECT_GE(c.result.throughput_samples_per_s, target);
  // The closed form, run on that split directly, gives the same step.
  EXPECT_DOUBLE_EQ(predict_analytic(c.plan).step_time_s, c.result.step_time_s);
  EXPECT_DOUBLE_EQ(*a.cost_per_hour, 2.0 * smallest);
  EXPECT_EQ(a.message.rfind("reachable: " + std::to_string(smallest) + " workers", 0), 0u)
      << a.message;
}

// A plan for DeepSpeed is searched for DeepSpeed's splits at every size, as `plan --search` does
// at the plan's own size: the best split per size and the smallest cluster's answer alike.
TEST(SplitPlan, OtherSizesAreSearchedForThePlansFramework) {
  core::Plan plan = small_plan();
  plan.training.workers = 32;
  plan.parallelism->framework = core::Framework::kDeepSpeed;
  std::vector<SizeBest> rows = best_split_per_size(plan, {16, 32});
  for (const SizeBest& row : rows) {
    ASSERT_TRUE(row.best.has_value()) << row.workers;
    EXPECT_EQ(row.best->plan.parallelism->framework, core::Framework::kDeepSpeed) << row.workers;
  }
  core::Plan at = plan;
  SplitSearchOptions one;
  one.top = 1;
  SplitSearch direct = search_splits(at, one);
  EXPECT_EQ(direct.framework, core::Framework::kDeepSpeed);
  ASSERT_FALSE(direct.best.empty());
  EXPECT_DOUBLE_EQ(rows[1].best->result.step_time_s, direct.best.front().result.step_time_s);
  SplitPlanRequest request;
  request.sequences_per_s = 1e-6;
  request.max_workers = 64;
  SplitPlanAnswer a = smallest_split_cluster(plan, request);
  EXPECT_EQ(a.search.framework, core::Framework::kDeepSpeed) << a.message;
}

// Hot spares are paid for while idle: the cluster's price counts their nodes beside its own.
TEST(SplitPlan, TheCostCountsTheHotSpares) {
  core::Plan plan = small_plan();
  plan.reliability = core::Reliability{};
  plan.reliability->node_mtbf = 100 * 86400.0;
  plan.reliability->train_steps = 1000;
  plan.reliability->repair = 86400;
  plan.reliability->hot_spares = 2;  // nodes of 8 devices
  SplitPlanRequest request;
  request.sequences_per_s = 1e-6;  // the first size reaches it
  request.max_workers = 64;
  request.price_per_device_hour = 2.0;
  SplitPlanAnswer a = smallest_split_cluster(plan, request);
  ASSERT_TRUE(a.reachable) << a.message;
  ASSERT_TRUE(a.cost_per_hour.has_value());
  EXPECT_DOUBLE_EQ(*a.cost_per_hour, 2.0 * (a.workers + 2 * 8));
}

TEST(SplitPlan, AnUnreachableTargetSaysHowFarItTried) {
  SplitPlanRequest request;
  request.sequences_per_s = 1e12;
  request.max_workers = 100;  // doublings to 64, then 12 whole nodes
  SplitPlanAnswer a = smallest_split_cluster(small_plan(), request);
  EXPECT_FALSE(a.reachable);
  EXPECT_EQ(a.tried, (std::vector<int>{8, 16, 32, 64, 96}));
  EXPECT_EQ(a.message.rfind("not reachable with at most 96 workers (tried 8..96)", 0), 0u)
      << a.message;
  request.sequences_per_s = 0;
  EXPECT_THROW(smallest_split_cluster(small_plan(), request), core::InputError);
}

}  // namespace
}  // namespace scaleout::sim
