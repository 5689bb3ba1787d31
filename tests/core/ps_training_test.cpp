// The PS training program on threads with real floats: every mode terminates and accounts for
// every gradient; servers end holding the sum of what they accepted.
#include "core/programs/strategies/ps_training.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "core/model/step_model.hpp"
#include "tests/support/memory_fabric.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

class Counts : public TrainingObserver {
 public:
  void worker_step(int, int, double, double, double, double) override { ++steps; }
  void applied(int, int, int staleness, double) override {
    ++applied_count;
    max_staleness = std::max(max_staleness.load(), staleness);
  }
  void dropped(int, double) override { ++dropped_count; }
  void left(int, int, double) override { ++left_count; }
  void version_done(int, std::int64_t, double) override {}
  std::atomic<int> steps{0}, applied_count{0}, dropped_count{0}, left_count{0}, max_staleness{0};
};

struct Totals {
  int steps, applied_count, dropped_count, left_count, max_staleness;
};

Plan ps_plan(int workers, int servers, int steps) {
  Plan p = testing::collective_plan(testing::switch_cluster(1, 1e9, 1e-6), StrategyKind::kPs,
                                    workers, 12);
  p.strategy.ps_servers = servers;
  p.training.steps = steps;
  return p;
}

Totals run(const Plan& p, std::vector<int> leave_step = {}) {
  StepModel m = make_step_model(p);
  PsTraining program(p, m, p.training.workers, p.strategy.ps_servers, leave_step, {});
  Counts counts;
  testing::run_ranks_in_memory(
      p.training.workers, p.strategy.ps_servers, m.elements,
      [&](Fabric& f) { program.run(f, counts); }, true);
  return {counts.steps, counts.applied_count, counts.dropped_count, counts.left_count,
          counts.max_staleness};
}

TEST(PsTraining, EveryModeAccountsForEveryGradient) {
  for (int servers : {1, 3}) {
    Plan async = ps_plan(5, servers, 4);
    async.strategy.ps_mode = PsMode::kAsync;
    Totals a = run(async);
    EXPECT_EQ(a.steps, 5 * 4);
    EXPECT_EQ(a.applied_count, 5 * 4 * servers);
    EXPECT_EQ(a.dropped_count, 0);

    Plan backup = ps_plan(5, servers, 4);
    backup.strategy.replicas_to_aggregate = 4;
    Totals b = run(backup);
    EXPECT_EQ(b.applied_count, 4 * 4 * servers) << "4 versions of 4 gradients per shard";
    EXPECT_EQ(b.max_staleness, 0) << "synchronous: only current-version gradients are applied";

    Plan soft = ps_plan(6, servers, 3);
    soft.strategy.softsync = 2;  // versions of 3 gradients, as many gradients as sync
    EXPECT_EQ(run(soft).applied_count, 6 * 3 * servers);
  }
  Plan bounded = ps_plan(6, 1, 5);
  bounded.strategy.ps_mode = PsMode::kAsync;
  bounded.strategy.staleness_bound = 1;
  EXPECT_LE(run(bounded).max_staleness, 1);
}

TEST(PsTraining, WorkersThatLeaveAreNotWaitedFor) {
  Plan async = ps_plan(4, 2, 6);
  async.strategy.ps_mode = PsMode::kAsync;
  Totals c = run(async, {-1, 2, -1, -1});
  EXPECT_EQ(c.left_count, 1);
  EXPECT_EQ(c.applied_count, (3 * 6 + 2) * 2);
}

TEST(PsTraining, RulesFollowThePlan) {
  Plan p = ps_plan(8, 1, 1);
  EXPECT_FALSE(uses_ps_training(p));
  EXPECT_EQ(ps_rules(p).aggregate, 8);
  p.strategy.softsync = 4;
  EXPECT_TRUE(uses_ps_training(p));
  EXPECT_EQ(ps_rules(p).aggregate, 2);
  EXPECT_FALSE(ps_rules(p).drop_stale);
  p.strategy.softsync = 0;
  p.strategy.replicas_to_aggregate = 6;
  EXPECT_TRUE(ps_rules(p).drop_stale);
  EXPECT_EQ(ps_rules(p).aggregate, 6);
}

}  // namespace
}  // namespace scaleout::core
