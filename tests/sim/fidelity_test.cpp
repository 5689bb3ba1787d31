// The fast fidelity (a run of fixed-peer steps as one message plus the steps' latencies) must keep
// the answer of the step-by-step simulation: within 1%, contended and uncontended.
#include <gtest/gtest.h>

#include <cmath>

#include "core/programs/fusion.hpp"
#include "sim/fidelity_check.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

constexpr double kTolerance = 0.01;

void expect_same(const core::Plan& plan, const std::string& what) {
  core::RunResult fast = simulate(plan, {Fidelity::kFast, ""});
  core::RunResult step = simulate(plan, {Fidelity::kStep, ""});
  EXPECT_EQ(fast.fidelity, "fast");
  EXPECT_EQ(step.fidelity, "step");
  double err = std::fabs(fast.step_time_s - step.step_time_s) / step.step_time_s;
  EXPECT_LT(err, kTolerance) << what << ": fast " << fast.step_time_s << " s, step "
                             << step.step_time_s << " s";
}

TEST(Fidelity, UncontendedSwitch) {
  core::Cluster c = testing::switch_cluster(8, 12.5e9, 2e-6);
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kTorus2d,
                    core::StrategyKind::kHierarchicalRing})
    expect_same(testing::collective_plan(c, kind, 32, 2.5e7), core::strategy_name(kind));
}

TEST(Fidelity, ContendedOversubscribedUplinkWithTcpModel) {
  core::Cluster c = testing::switch_cluster(2, 12.5e9, 2e-6);
  c.network.kind = core::NetworkKind::kTwoTier;
  c.network.hosts_per_rack = 2;
  c.network.uplink = {4e9, 2e-6};
  c.network_model = "lv08";  // latency x13.01, cross-traffic on
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kTorus2d})
    expect_same(testing::collective_plan(c, kind, 16, 2.5e6),
                std::string("two-tier ") + core::strategy_name(kind));
}

TEST(Fidelity, FusionKindsWithOverlap) {
  core::Cluster c = testing::switch_cluster(8, 12.5e9, 2e-6);
  for (auto kind : {core::Training::Fusion::Kind::kDdp, core::Training::Fusion::Kind::kHorovod}) {
    core::Plan p = testing::collective_plan(c, core::StrategyKind::kRing, 32, 2.5e7);
    p.workload.flops_per_sample = 2e10;  // 0.2 ms of compute to overlap with
    p.training.overlap = true;
    p.training.fusion.kind = kind;
    p.training.fusion.bucket_cap = 16e6;
    p.training.fusion.cycle_time = 3e-5;
    expect_same(p, core::fusion_kind_name(kind));
  }
}

// One rank computing at half speed: coalesced ring phases let the ranks after it go on as if its
// chunks came in step (on this plan fast fidelity gave 20.5 ms against 24.2 ms step by step before
// plans like it were made to run step by step), so a plan with stragglers or unlike speeds runs
// step by step whatever was asked: the same simulation, the same answer.
TEST(Fidelity, StragglersAndUnlikeSpeedsRunStepByStep) {
  core::Cluster c = testing::switch_cluster(8, 12.5e9, 2e-6);
  core::Plan slow = testing::collective_plan(c, core::StrategyKind::kRing, 64, 2.5e7);
  slow.workload.flops_per_sample = 4e11;  // 4 ms of compute, 8 ms on the slow rank
  slow.stragglers.slow_workers = {3};
  slow.stragglers.slow_factor = 2;
  core::Plan unlike = testing::collective_plan(c, core::StrategyKind::kRing, 64, 2.5e7);
  unlike.workload.flops_per_sample = 4e11;
  unlike.cluster.heterogeneity.speed_factors = {{"node0", 0.5}};
  for (const core::Plan* p : {&slow, &unlike}) {
    core::RunResult fast = simulate(*p, {Fidelity::kFast, ""});
    core::RunResult step = simulate(*p, {Fidelity::kStep, ""});
    EXPECT_EQ(fast.fidelity, "step");
    EXPECT_EQ(fast.step_time_s, step.step_time_s);
  }
}

// The check debug builds run on every fast simulation of a small plan: it simulates the steps one
// by one and says when the two differ; plans that ran step by step or are too large are left.
TEST(Fidelity, TheCheckHoldsFastToTheSteps) {
  core::Cluster c = testing::switch_cluster(4, 12.5e9, 2e-6);
  core::Plan plan = testing::collective_plan(c, core::StrategyKind::kRing, 16, 2.5e7);
  SimOptions fast_options{Fidelity::kFast, ""};
  core::RunResult fast = simulate(plan, fast_options);
  FidelityCheck check = check_fast_against_steps(plan, fast_options, fast);
  ASSERT_TRUE(check.checked);
  EXPECT_TRUE(check.agree()) << check.fast_s << " s against " << check.step_s << " s";
  EXPECT_NEAR(check.step_s, simulate(plan, {Fidelity::kStep, ""}).step_time_s, 1e-12);
  // A fast answer 5% off is caught, and a debug build says so in the result.
  core::RunResult off = fast;
  off.warnings.clear();
  off.step_time_s *= 1.05;
  EXPECT_FALSE(check_fast_against_steps(plan, fast_options, off).agree());
  core::RunResult said = with_fidelity_check(plan, fast_options, off);
  EXPECT_EQ(said.warnings.size(), kCheckFastFidelity ? 1u : 0u);
  // Left alone: a plan that ran step by step, and one of more ranks than the check simulates.
  core::RunResult step = simulate(plan, {Fidelity::kStep, ""});
  EXPECT_FALSE(check_fast_against_steps(plan, {Fidelity::kStep, ""}, step).checked);
  core::Plan large = testing::collective_plan(c, core::StrategyKind::kRing, 128, 2.5e7);
  core::RunResult large_fast = fast;  // only its fidelity is read before the size
  EXPECT_FALSE(check_fast_against_steps(large, fast_options, large_fast).checked);
}

}  // namespace
}  // namespace scaleout::sim
