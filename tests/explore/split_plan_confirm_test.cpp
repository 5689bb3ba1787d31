// The smallest cluster checked by simulation: the answer moves up while SimGrid's fastest split
// falls short of the target, and stays where SimGrid agrees.
#include "explore/split_plan_confirm.hpp"

#include <gtest/gtest.h>

#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

// 64 sequences a step on nodes of 8: the closed form's best split at 32 workers is interleaved
// (tensor 2 x pipeline 4), whose stage transfers share the NICs in simulation.
core::Plan small_plan() { return testing::small_transformer_plan("split-confirm", "16GB"); }

RefineOptions four() {
  RefineOptions o;
  o.count = 4;
  o.jobs = 2;
  return o;
}

// The fastest of the first four splits at `workers`, simulated on their own.
double simulated_at(const core::Plan& plan, int workers) {
  SplitSearchOptions search;
  SplitSearch s = search_at(with_global_batch(plan), workers, search);
  double best = 0;
  for (const auto& split : refine_splits(s, four()).order)
    if (split.simulated) best = std::max(best, split.simulated->throughput_samples_per_s);
  return best;
}

TEST(SplitPlanConfirm, TheAnswerMovesUpUntilSimulationReachesTheTarget) {
  core::Plan plan = small_plan();
  SplitPlanRequest request;
  request.max_workers = 128;
  // The closed form's best at 32 workers, as the target: reached there in closed form.
  SplitSearchOptions one;
  one.top = 1;
  request.sequences_per_s =
      search_at(with_global_batch(plan), 32, one).best.front().result.throughput_samples_per_s;
  SplitPlanAnswer closed = smallest_split_cluster(plan, request);
  ASSERT_TRUE(closed.reachable);
  ASSERT_EQ(closed.workers, 32);
  ConfirmedCluster c = confirm_by_simulation(plan, request, closed, four());
  ASSERT_TRUE(c.answer.reachable) << c.message;
  ASSERT_TRUE(c.simulated_sequences_per_s);
  EXPECT_GE(*c.simulated_sequences_per_s, request.sequences_per_s);
  EXPECT_NEAR(*c.simulated_sequences_per_s, simulated_at(plan, c.answer.workers), 1e-9);
  // Every count it passed over fell short in simulation, or had no split at all.
  ASSERT_FALSE(c.fell_short.empty()) << c.message;
  EXPECT_EQ(c.fell_short.front(), 32);
  for (int n : c.fell_short) EXPECT_LT(simulated_at(plan, n), request.sequences_per_s) << n;
  EXPECT_GT(c.answer.workers, 32);
  EXPECT_NE(c.message.find("moves the answer to " + std::to_string(c.answer.workers)),
            std::string::npos)
      << c.message;
}

TEST(SplitPlanConfirm, AnAnswerSimulationReachesStands) {
  core::Plan plan = small_plan();
  SplitPlanRequest request;
  request.sequences_per_s = 100;
  request.max_workers = 64;
  SplitPlanAnswer closed = smallest_split_cluster(plan, request);
  ASSERT_TRUE(closed.reachable);
  ConfirmedCluster c = confirm_by_simulation(plan, request, closed, four());
  EXPECT_EQ(c.answer.workers, closed.workers);
  EXPECT_TRUE(c.fell_short.empty());
  ASSERT_TRUE(c.simulated_sequences_per_s);
  EXPECT_GE(*c.simulated_sequences_per_s, 100);
  EXPECT_NE(c.message.find("SimGrid confirms"), std::string::npos) << c.message;
}

}  // namespace
}  // namespace scaleout::sim
