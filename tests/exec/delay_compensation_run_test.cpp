// Delay-compensated asynchronous SGD executed over Gloo: servers apply the compensated update to
// real fp32 parameters, keeping each worker's pulled copy; each server's final parameters are
// compared bit for bit with a replay of the updates in the order it applied them.
#include <gtest/gtest.h>

#include <string>

#include "exec/local_run.hpp"
#include "tests/exec/quick_options.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::exec {
namespace {

core::Plan compensated_plan(int workers, int servers) {
  core::Plan p = testing::collective_plan(testing::switch_cluster(2, 1.25e9, 5e-6),
                                          core::StrategyKind::kPs, workers, 100003);
  p.training.steps = 5;
  p.strategy.ps_mode = core::PsMode::kAsync;
  p.strategy.ps_servers = servers;
  p.strategy.delay_compensation = {true, 0.04, 0.01, 0};
  return p;
}

TEST(DelayCompensationRun, ServersHoldExactlyTheReplayedParameters) {
  for (int servers : {1, 2}) {
    SCOPED_TRACE(std::to_string(servers) + " servers");
    core::RunResult r = run_local(compensated_plan(3, servers), testing::quick_options());
    EXPECT_EQ(r.wrong, 0);
    EXPECT_EQ(r.gradients.applied, 3 * 5);
    EXPECT_GT(r.staleness.max, 0) << "nothing stale: the compensation was never exercised";
    ASSERT_TRUE(r.compensation);
    EXPECT_GT(r.compensation->pulled_bytes, 0);
  }
}

TEST(DelayCompensationRun, ServersWithoutTheCompensationFailTheCheck) {
  ExecOptions o = testing::quick_options();
  o.faults.drop_delay_compensation = true;
  core::RunResult r = run_local(compensated_plan(3, 1), o);
  EXPECT_GT(r.wrong, 0);  // the CLI then fails the run
}

}  // namespace
}  // namespace scaleout::exec
