// A simulation's progress: the child counts every message its ranks send in memory it shares with
// the parent, which reads the count while it waits. The count is checked against what the plan
// implies, and the work estimate (which refuses large simulations and is the progress's "of
// about") against the count, for every strategy.
#include "sim/sim_progress.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/plan/plan_loader.hpp"
#include "sim/simulator.hpp"
#include "sim/work_estimate.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

core::Plan quickstart(core::StrategyKind kind, int workers) {
  core::Plan p = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  p.strategy.kind = kind;
  p.training.workers = workers;
  return p;
}

// The reports a simulation gave, the last one (finished) at the end.
std::vector<ProgressReport> reports_of(const core::Plan& plan, Fidelity fidelity,
                                       double every_s = 0.5) {
  std::vector<ProgressReport> seen;
  SimOptions options;
  options.fidelity = fidelity;
  finish_simulation(
      start_simulation(plan, options), [&](const ProgressReport& r) { seen.push_back(r); },
      every_s);
  return seen;
}

TEST(SimProgress, ARingSendsOneMessagePerRankBucketAndStepAtFastFidelity) {
  core::Plan p = quickstart(core::StrategyKind::kRing, 64);
  SimOptions options;
  core::RunResult r = finish_simulation(start_simulation(p, options));
  std::vector<ProgressReport> seen = reports_of(p, Fidelity::kFast);
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(seen.back().finished);
  // A fast ring phase is one message per rank (each bucket's reduce-scatter and all-gather).
  EXPECT_EQ(seen.back().messages, static_cast<std::uint64_t>(64 * 2 * r.buckets));
  EXPECT_GT(seen.back().simulated_s, 0);
}

TEST(SimProgress, ReportsComeWhileItRunsAndNeverGoBack) {
  // Step fidelity: 2 x 63 messages per rank and bucket, about half a second here.
  std::vector<ProgressReport> seen =
      reports_of(quickstart(core::StrategyKind::kRing, 64), Fidelity::kStep, 0.02);
  ASSERT_GE(seen.size(), 3u);
  for (std::size_t i = 1; i < seen.size(); ++i) {
    EXPECT_GE(seen[i].messages, seen[i - 1].messages) << i;
    EXPECT_GE(seen[i].elapsed_s, seen[i - 1].elapsed_s) << i;
    EXPECT_EQ(seen[i].finished, i + 1 == seen.size()) << i;
  }
  EXPECT_LT(seen.front().messages, seen.back().messages);
}

TEST(SimProgress, TheWorkEstimateIsWithinAFifthOfTheMessagesSent) {
  using K = core::StrategyKind;
  for (K kind : {K::kRing, K::kTorus2d, K::kHierarchicalRing, K::kHalvingDoubling, K::kTree,
                 K::kHierarchicalAllreduce, K::kHierarchicalHalvingDoubling, K::kPs}) {
    for (Fidelity f : {Fidelity::kFast, Fidelity::kStep}) {
      core::Plan p = quickstart(kind, 64);
      double sent = static_cast<double>(reports_of(p, f).back().messages);
      double estimate = estimate_work(p, f).messages;
      EXPECT_NEAR(estimate / sent, 1.0, 0.2)
          << core::strategy_name(kind) << " " << fidelity_name(f) << ": " << sent << " sent, "
          << estimate << " estimated";
    }
  }
}

TEST(SimProgress, TheWorkEstimateOfAnAsynchronousPsCountsItsWorkersMessages) {
  core::Plan p = quickstart(core::StrategyKind::kPs, 16);
  p.strategy.ps_servers = 4;
  p.strategy.ps_mode = core::PsMode::kAsync;
  p.training.steps = 20;
  double sent = static_cast<double>(reports_of(p, Fidelity::kFast).back().messages);
  // Each shard first sends every worker the parameters; then each step a worker pushes to each of
  // the 4 shards and each shard answers: 16 x 4 x (1 + 2 x 20).
  EXPECT_EQ(sent, 16 * 4 * (1 + 2 * 20));
  EXPECT_NEAR(estimate_work(p, Fidelity::kFast).messages / sent, 1.0, 0.2);
}

}  // namespace
}  // namespace scaleout::sim
