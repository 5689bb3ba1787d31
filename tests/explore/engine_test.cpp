// The Engine interface the drivers use: each engine's answer through it is the engine's own, to
// the bit; batches run every plan and report each refusal; the SimGrid engine's refusals come
// before any work.
#include "explore/engine.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "analytic/analytic.hpp"
#include "analytic/analytic_model_parallel.hpp"
#include "core/plan/input_error.hpp"
#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

core::Plan ring_plan(int workers) {
  return testing::collective_plan(testing::switch_cluster(4, 12.5e9, 2e-6),
                                  core::StrategyKind::kRing, workers, 100e6);
}

TEST(Engine, TheClosedFormsThroughTheInterfaceGiveTheirOwnAnswer) {
  auto engine = make_engine(Engine::kAnalytic);
  EXPECT_EQ(engine->kind(), Engine::kAnalytic);
  core::Plan plan = ring_plan(16);
  double direct = predict_analytic(plan).step_time_s;
  EXPECT_EQ(engine->predict(plan).step_time_s, direct);
  engine->prepare(plan.cluster, 64, false);  // a topology built larger, shared
  EXPECT_EQ(engine->predict(plan).step_time_s, direct);
  EXPECT_EQ(*engine->exchange_time(plan, 1e6),
            AnalyticModel(plan.cluster, 16).exchange_time(plan, 1e6));
}

TEST(Engine, SplitsOfOneStrategyShareTheirGroupsTimesToTheBit) {
  core::Plan plan = testing::small_transformer_plan("engine-split", "80GB");
  auto engine = make_engine(Engine::kAnalytic);
  engine->prepare(plan.cluster, plan.training.workers, true);
  for (int tensor : {1, 2, 4}) {
    core::Plan p = plan;
    p.parallelism->tensor = tensor;
    EXPECT_EQ(engine->predict(p).step_time_s, predict_model_parallel(p).step_time_s) << tensor;
  }
}

TEST(Engine, ABatchEndsEveryPlanInDoneOrFailed) {
  auto engine = make_engine(Engine::kAnalytic);
  // Two plans on one cluster (alike), then one on a cluster of one node that is too small for it.
  std::vector<core::Plan> plans = {ring_plan(4), ring_plan(8), ring_plan(8)};
  plans[2].cluster.nodes = 1;
  PlanBatch batch{[&](std::size_t i) { return plans[i]; },
                  [](std::size_t i) { return i < 2 ? std::size_t{0} : std::size_t{1}; }};
  std::map<std::size_t, double> done;
  std::map<std::size_t, std::string> failed;
  bool complete = engine->predict_each(
      batch, 0, plans.size(), [&](std::size_t i, core::RunResult&& r) { done[i] = r.step_time_s; },
      [&](std::size_t i, const std::string& why) { failed[i] = why; });
  EXPECT_TRUE(complete);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0], predict_analytic(plans[0]).step_time_s);
  EXPECT_EQ(done[1], predict_analytic(plans[1]).step_time_s);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[2].find("devices"), std::string::npos) << failed[2];
}

TEST(Engine, SimGridRefusesBeforeAnyWork) {
  auto engine = make_engine(Engine::kSim);
  EXPECT_EQ(engine->kind(), Engine::kSim);
  EXPECT_FALSE(engine->exchange_time(ring_plan(8), 1e6).has_value());
  core::Plan ps = testing::small_transformer_plan("engine-ps", "80GB");
  ps.strategy.kind = core::StrategyKind::kPs;
  try {
    engine->check(ps);
    ADD_FAILURE() << "a parameter server as a split's data exchange was not refused";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "strategy");
  }
  EngineOptions capped;
  capped.sim.max_events = 10;
  capped.sim.fidelity = Fidelity::kStep;  // 8 ranks' ring: 14 steps of 8 messages each
  EXPECT_THROW(make_engine(Engine::kSim, capped)->check(ring_plan(8)), core::InputError);
  EXPECT_NO_THROW(engine->check(ring_plan(8)));
}

TEST(Engine, SimGridBatchesRunSideBySideAndMatchOneByOne) {
  EngineOptions two;
  two.jobs = 2;
  auto engine = make_engine(Engine::kSim, two);
  std::vector<core::Plan> plans = {ring_plan(4), ring_plan(8), ring_plan(8)};
  plans[2].strategy.kind = core::StrategyKind::kTree;
  PlanBatch batch{[&](std::size_t i) { return plans[i]; }, nullptr};
  std::map<std::size_t, double> done;
  EXPECT_TRUE(engine->predict_each(
      batch, 0, plans.size(), [&](std::size_t i, core::RunResult&& r) { done[i] = r.step_time_s; },
      [](std::size_t i, const std::string& why) { ADD_FAILURE() << i << ": " << why; }));
  ASSERT_EQ(done.size(), 3u);
  for (std::size_t i = 0; i < plans.size(); ++i)
    EXPECT_EQ(done[i], simulate(plans[i]).step_time_s) << i;
}

TEST(Engine, ACancelledBatchSaysSo) {
  std::atomic<bool> cancel{true};
  EngineOptions o;
  o.cancel = &cancel;
  for (Engine kind : {Engine::kAnalytic, Engine::kSim}) {
    auto engine = make_engine(kind, o);
    std::vector<core::Plan> plans = {ring_plan(8)};
    PlanBatch batch{[&](std::size_t i) { return plans[i]; }, nullptr};
    int ended = 0;
    EXPECT_FALSE(engine->predict_each(
        batch, 0, 1, [&](std::size_t, core::RunResult&&) { ++ended; },
        [&](std::size_t, const std::string&) { ++ended; }))
        << engine_name(kind);
    EXPECT_EQ(ended, 0) << engine_name(kind);
  }
}

}  // namespace
}  // namespace scaleout::sim
