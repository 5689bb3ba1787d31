// The parameter server with local aggregation, executed for real on loopback over Gloo: the
// workers' sums must be exact (the node's reduce-scatter, the servers' sums of one contribution
// per node, and the node's all-gather together give every worker the sum over all workers).
#include <gtest/gtest.h>

#include "exec/local_run.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::exec {
namespace {

TEST(PsLocalRun, NodeAggregationEndsWithExactSums) {
  struct Case {
    int workers, servers;
  };
  // Nodes of 2: whole nodes, a last node of one worker, and shards that cut the nodes' parts.
  for (Case c : {Case{4, 1}, Case{4, 2}, Case{3, 2}, Case{4, 3}}) {
    SCOPED_TRACE(std::to_string(c.workers) + " workers, " + std::to_string(c.servers) + " servers");
    core::Plan plan = testing::collective_plan(testing::switch_cluster(2, 1.25e9, 5e-6),
                                               core::StrategyKind::kPs, c.workers, 100003);
    plan.training.steps = 2;
    plan.strategy.ps_servers = c.servers;
    plan.strategy.ps_local_aggregation = core::PsAggregation::kNode;
    ExecOptions o;
    o.timeout = std::chrono::milliseconds(10000);
    o.compute_scale = 1e-3;
    core::RunResult r = run_local(plan, o);
    EXPECT_EQ(r.wrong, 0);
    EXPECT_EQ(r.steps.size(), 2u);
    EXPECT_GT(r.step_time_s, 0);
  }
}

}  // namespace
}  // namespace scaleout::exec
