// Executed runs on loopback: every strategy moves real floats over Gloo and ends with exact sums.
#include "exec/local_run.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::exec {
namespace {

core::Plan small_plan(core::StrategyKind kind, int workers) {
  core::Plan p = testing::collective_plan(testing::switch_cluster(2, 1.25e9, 5e-6), kind, workers, 100003);
  p.training.steps = 2;
  p.strategy.chunk = 64 * 1024;
  return p;
}

ExecOptions quick() {
  ExecOptions o;
  o.timeout = std::chrono::milliseconds(10000);
  o.compute_scale = 1e-3;
  return o;
}

TEST(LocalRun, EveryStrategyEndsWithExactSums) {
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kTorus2d, core::StrategyKind::kHierarchicalRing,
                    core::StrategyKind::kHalvingDoubling, core::StrategyKind::kTree, core::StrategyKind::kPs})
    for (int n : {2, 3, 4}) {
      if (kind == core::StrategyKind::kHierarchicalRing && n == 3) continue;  // nodes of 2: not whole
      SCOPED_TRACE(std::string(core::strategy_name(kind)) + " with " + std::to_string(n) + " workers");
      core::Plan plan = small_plan(kind, n);
      ExecOptions o = quick();
      o.baselines = n == 4;
      core::RunResult r;
      try {
        r = run_local(plan, o);
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      EXPECT_EQ(r.wrong, 0) << core::strategy_name(kind) << " n=" << n;
      EXPECT_EQ(r.engine, "cpu");
      EXPECT_EQ(r.steps.size(), 2u);
      EXPECT_GT(r.step_time_s, 0);
      EXPECT_GT(r.busbw_Bps, 0);
      if (o.baselines && kind != core::StrategyKind::kPs) {
        ASSERT_EQ(r.baselines.size(), 2u);
        for (const auto& b : r.baselines) EXPECT_EQ(b.wrong, 0) << b.name;
      }
      nlohmann::json j = core::to_json(r);
      for (const char* key : {"engine", "strategy", "workers", "bytes", "step_time_s", "throughput_samples_per_s",
                              "scaling_efficiency", "phases", "algbw_Bps", "busbw_Bps", "staleness", "steps", "links",
                              "wrong"})
        EXPECT_TRUE(j.contains(key)) << key;
    }
}

TEST(LocalRun, SimulatedOnlyImperfectionsAreRefusedClearly) {
  core::Plan plan = small_plan(core::StrategyKind::kRing, 2);
  plan.stragglers.slow_workers = {1};
  plan.stragglers.slow_factor = 2;
  EXPECT_THROW(run_local(plan, quick()), core::InputError);
}

TEST(LocalRun, ParameterServerModesRunForRealWithExactSums) {
  struct Mode {
    const char* name;
    int servers;
    core::PsMode mode;
    int replicas, softsync, bound;
  };
  for (Mode m : {Mode{"async", 1, core::PsMode::kAsync, 0, 0, -1}, Mode{"async 2 shards", 2, core::PsMode::kAsync, 0, 0, -1},
                 Mode{"backup workers", 2, core::PsMode::kSync, 2, 0, -1}, Mode{"softsync", 1, core::PsMode::kSync, 0, 3, -1},
                 Mode{"bounded", 1, core::PsMode::kAsync, 0, 0, 1}}) {
    SCOPED_TRACE(m.name);
    core::Plan plan = small_plan(core::StrategyKind::kPs, 3);
    plan.training.steps = 5;
    plan.strategy.ps_servers = m.servers;
    plan.strategy.ps_mode = m.mode;
    plan.strategy.replicas_to_aggregate = m.replicas;
    plan.strategy.softsync = m.softsync;
    plan.strategy.staleness_bound = m.bound;
    core::RunResult r;
    try {
      r = run_local(plan, quick());
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    EXPECT_EQ(r.wrong, 0) << "servers hold exactly the sum of the gradients they accepted";
    if (m.replicas > 0) {
      EXPECT_EQ(r.gradients.applied, 2 * 5);  // 5 versions of 2 gradients
      EXPECT_EQ(r.staleness.max, 0);
    } else {
      EXPECT_EQ(r.gradients.applied, 3 * 5);
    }
    if (m.bound >= 0) EXPECT_LE(r.staleness.max, m.bound);
    if (m.mode == core::PsMode::kAsync && m.bound < 0) EXPECT_GT(r.staleness.mean, 0);
  }
}

TEST(LocalRun, AKilledRankFailsTheRunNamingIt) {
  core::Plan plan = small_plan(core::StrategyKind::kRing, 3);
  plan.training.steps = 3;
  ExecOptions o = quick();
  o.timeout = std::chrono::milliseconds(3000);
  o.kill_rank = 1;
  o.kill_step = 1;
  auto t0 = std::chrono::steady_clock::now();
  try {
    run_local(plan, o);
    FAIL() << "the run did not fail";
  } catch (const RunFailed& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

}  // namespace
}  // namespace scaleout::exec
