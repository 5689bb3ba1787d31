// Asynchronous and imperfect training in the simulator: staleness, backup workers, stragglers,
// failures, and the closed forms beside them.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analytic/analytic.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

using core::StrategyKind;

// 1-GPU nodes on 10 Gb/s, 40 MB of gradient, 0.1 s of compute per step.
core::Plan base_plan(StrategyKind kind, int workers, int steps) {
  core::Plan p =
      testing::collective_plan(testing::switch_cluster(1, 1.25e9, 5e-6), kind, workers, 1e7);
  p.workload.flops_per_sample = 1e13;  // at 100 TFLOPS: 0.1 s
  p.training.steps = steps;
  return p;
}

core::Plan async_ps(int workers, int steps) {
  core::Plan p = base_plan(StrategyKind::kPs, workers, steps);
  p.strategy.ps_mode = core::PsMode::kAsync;
  return p;
}

TEST(Staleness, SynchronousStrategiesReportNone) {
  core::Plan softsync = base_plan(StrategyKind::kPs, 4, 5);
  softsync.strategy.softsync = 1;
  for (const core::Plan& p :
       {base_plan(StrategyKind::kRing, 4, 5), base_plan(StrategyKind::kPs, 4, 5), softsync}) {
    core::RunResult r = simulate(p);
    EXPECT_EQ(r.staleness.max, 0) << r.strategy;
    EXPECT_DOUBLE_EQ(r.staleness.mean, 0);
    EXPECT_EQ(r.gradients.applied, 4 * 5);
  }
}

TEST(Staleness, AsyncPsWithIdenticalWorkersIsAboutNMinusOneStale) {
  for (int n : {4, 8, 16}) {
    core::RunResult r = simulate(async_ps(n, 30));
    EXPECT_NEAR(r.staleness.mean, n - 1, 0.1 * (n - 1)) << n << " workers";
    EXPECT_EQ(r.gradients.applied, n * 30);
  }
}

TEST(Staleness, TheTraceShowsPullsAndPushes) {
  core::Plan p = async_ps(4, 3);
  p.strategy.ps_servers = 2;
  std::string path =
      (std::filesystem::temp_directory_path() / "scaleout-async-trace.json").string();
  simulate(p, {Fidelity::kFast, path});
  auto trace = nlohmann::json::parse(std::ifstream(path));
  int pulls = 0, pushes = 0, parameters = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    std::string name = e["name"];
    pulls += name == "pull";
    pushes += name.rfind("push from worker ", 0) == 0;
    parameters += name.rfind("parameters from server ", 0) == 0;
  }
  EXPECT_EQ(pulls, 4 * 3);
  EXPECT_EQ(pushes, 4 * 3 * 2) << "every step's gradient reaches both shards";
  EXPECT_EQ(parameters, 4 * 3 * 2) << "every step pulls both shards";
  std::filesystem::remove(path);
}

TEST(Staleness, BoundedStalenessNeverExceedsItsBound) {
  core::Plan free_running = async_ps(8, 20);
  free_running.stragglers.random = core::SlowdownKind::kExponential;
  free_running.stragglers.mean = 0.5;
  EXPECT_GT(simulate(free_running).staleness.max, 3);
  for (int bound : {0, 1, 3}) {
    core::Plan p = free_running;
    p.strategy.staleness_bound = bound;
    core::RunResult r = simulate(p);
    EXPECT_LE(r.staleness.max, bound);
    if (bound > 0) EXPECT_GT(r.staleness.mean, 0) << "the bound must not serialize the workers";
    EXPECT_EQ(r.gradients.applied, 8 * 20);
  }
}

TEST(Staleness, SoftsyncWithOneEqualsSync) {
  core::Plan sync = base_plan(StrategyKind::kPs, 8, 6);
  core::Plan soft = sync;
  soft.strategy.softsync = 1;
  double a = simulate(sync).step_time_s, b = simulate(soft).step_time_s;
  EXPECT_NEAR(b / a, 1.0, 0.01) << "sync " << a << " s, 1-softsync " << b << " s";
}

TEST(Stragglers, OneSlowWorkerSetsTheRingsPace) {
  core::Plan p = base_plan(StrategyKind::kRing, 8, 5);
  double normal = simulate(p).step_time_s;
  p.stragglers.slow_workers = {3};
  p.stragglers.slow_factor = 2;
  double slowed = simulate(p).step_time_s;
  EXPECT_NEAR(slowed - normal, 0.1, 0.005) << "the step waits for one extra compute time";
}

TEST(Stragglers, BackupWorkersRecoverMostOfTheLossAndDropOneGradientPerStep) {
  int n = 8, steps = 10;
  core::Plan p = base_plan(StrategyKind::kPs, n, steps);
  p.cluster.nic.bandwidth = 12.5e9;  // compute-bound, so the straggler sets the pace
  p.strategy.ps_servers = 2;
  double normal = simulate(p).step_time_s;
  p.stragglers.slow_workers = {5};
  p.stragglers.slow_factor = 3;
  double slowed = simulate(p).step_time_s;
  p.strategy.replicas_to_aggregate = n - 1;
  core::RunResult backup = simulate(p);
  EXPECT_GT(slowed, normal * 1.5);
  EXPECT_GT((slowed - backup.step_time_s) / (slowed - normal), 0.8)
      << "normal " << normal << " slowed " << slowed << " backup " << backup.step_time_s;
  // The 3x slower worker finishes a gradient every third version, always too late: each is dropped.
  EXPECT_NEAR(backup.gradients.dropped, steps / 3.0, 1.0);
  EXPECT_EQ(backup.gradients.applied, (n - 1) * steps);
  testing::expect_rates_from_applied(backup, p.training.batch_per_worker, steps);
  core::RunResult closed_form = predict_analytic(p);
  testing::expect_rates_from_applied(closed_form, p.training.batch_per_worker, steps);

  // A worker only a little slower drops (almost) one gradient per step.
  p.stragglers.slow_factor = 1.05;
  core::RunResult mild = simulate(p);
  EXPECT_GE(mild.gradients.dropped, steps - 1.0);
  EXPECT_LE(mild.throughput_samples_per_s, n * p.training.batch_per_worker / 0.1)
      << "no more than compute allows";
}

TEST(Staleness, ShardsAndUnevenSoftsyncDoNotInflateThroughput) {
  // 5 workers, 2-softsync: versions of 3 gradients (16 over 10 steps' worth), on 2 shards.
  core::Plan p = base_plan(StrategyKind::kPs, 5, 10);
  p.cluster.nic.bandwidth = 12.5e9;
  p.strategy.ps_servers = 2;
  p.strategy.softsync = 2;
  core::RunResult soft = simulate(p);
  EXPECT_LE(soft.scaling_efficiency, 1.0);
  EXPECT_EQ(soft.gradients.applied, 5 * 10 - 5 * 10 % 3);  // whole versions only
  p.strategy.softsync = 0;
  core::RunResult sync = simulate(p);
  EXPECT_LE(sync.scaling_efficiency, 1.0);
  EXPECT_EQ(sync.gradients.applied, 5 * 10);
  EXPECT_NEAR(soft.step_time_s / sync.step_time_s, 1.0, 0.25)
      << "the same work: all gradients, no waiting for all";
}

TEST(Stragglers, SameSeedSameRunOtherSeedOtherPattern) {
  core::Plan p = base_plan(StrategyKind::kRing, 4, 8);
  p.stragglers.random = core::SlowdownKind::kLognormal;
  p.stragglers.sigma = 0.3;
  p.stragglers.seed = 11;
  core::RunResult a = simulate(p), b = simulate(p);
  p.stragglers.seed = 12;
  core::RunResult c = simulate(p);
  int differ = 0;
  for (int s = 0; s < 8; ++s) {
    EXPECT_DOUBLE_EQ(a.steps[s].time_s, b.steps[s].time_s);
    differ += std::fabs(a.steps[s].time_s - c.steps[s].time_s) > 1e-9;
  }
  EXPECT_GE(differ, 6);
}

TEST(Heterogeneity, SlowerNodeAndNarrowerLinkShowInTheStep) {
  core::Plan p = base_plan(StrategyKind::kRing, 4, 2);
  double normal = simulate(p).step_time_s;
  core::Plan slow_node = p;
  slow_node.cluster.heterogeneity.speed_factors = {{"node2", 0.5}};
  EXPECT_NEAR(simulate(slow_node).step_time_s - normal, 0.1, 0.005);
  core::Plan narrow = p;
  narrow.cluster.heterogeneity.link_bandwidth = {{"node1-nic", 1.25e9 / 4}};
  core::RunResult r = simulate(narrow);
  EXPECT_GT(r.phases.comm_s, 3 * simulate(p).phases.comm_s);
}

TEST(Failures, RestartFromCheckpointLosesAtMostTheIntervalPlusRestart) {
  core::Plan p = base_plan(StrategyKind::kRing, 4, 20);
  core::RunResult clean = simulate(p);
  p.resilience.checkpoint_every = 5;
  p.resilience.checkpoint_cost = 0.05;
  p.resilience.restart_time = 2;
  p.resilience.failures = {{1, 13, -1, 0}};
  core::RunResult failed = simulate(p);
  EXPECT_EQ(failed.resilience.policy, "restart_from_checkpoint");
  EXPECT_EQ(failed.resilience.failures, 1);
  EXPECT_GT(failed.resilience.lost_work_s, 0);
  EXPECT_LE(failed.resilience.lost_work_s, 5 * clean.step_time_s * 1.0001);
  double expected_wall = 20 * clean.step_time_s + 3 * 0.05 + failed.resilience.lost_work_s + 2;
  EXPECT_NEAR(failed.resilience.wall_s, expected_wall, 1e-6);
  EXPECT_NEAR(failed.resilience.goodput_samples_per_s, 20.0 * 4 / expected_wall, 1e-6);
  EXPECT_LT(failed.resilience.goodput_samples_per_s, clean.throughput_samples_per_s * 0.7);
}

TEST(Failures, AsyncPsGoesOnWithoutTheFailedWorkers) {
  core::Plan p = async_ps(6, 10);
  p.resilience.failures = {{2, 4, -1, 0}};  // node 2 holds worker 2
  core::RunResult r = simulate(p);
  EXPECT_EQ(r.resilience.policy, "continue_without_failed_workers");
  EXPECT_EQ(r.resilience.left_workers, std::vector<int>{2});
  EXPECT_EQ(r.gradients.applied, 5 * 10 + 4);
}

TEST(Analytic, BackupWorkersUnderExponentialStragglers) {
  // E[step] = compute x (1 + m (H_N - H_{N-k})) + exchange; sim averages 40 steps of draws.
  int n = 8;
  core::Plan p = base_plan(StrategyKind::kPs, n, 40);
  p.cluster.nic.bandwidth = 12.5e9;  // the closed form assumes compute dominates
  p.stragglers.random = core::SlowdownKind::kExponential;
  p.stragglers.mean = 0.5;
  for (int k : {n, n - 2}) {
    p.strategy.replicas_to_aggregate = k;
    double sim = simulate(p).step_time_s, ana = predict_analytic(p).step_time_s;
    EXPECT_NEAR(ana / sim, 1.0, 0.10) << "k=" << k << " sim " << sim << " analytic " << ana;
  }
}

TEST(Analytic, AsyncPsThroughputAndStalenessWhenComputeBound) {
  core::Plan p = async_ps(8, 30);
  p.cluster.nic.bandwidth = 12.5e9;  // 100 Gb/s: compute dominates the cycle
  core::RunResult sim = simulate(p), ana = predict_analytic(p);
  EXPECT_NEAR(ana.throughput_samples_per_s / sim.throughput_samples_per_s, 1.0, 0.10);
  EXPECT_NEAR(ana.staleness.mean / sim.staleness.mean, 1.0, 0.10);
}

// Bound by the server's link, the closed form assumes it busy all the time both ways, after the
// run's start (every worker pulling at once) counted once; tests/sim/sim_vs_analytic_test.cpp
// holds it within 5% at 16-64 workers. With 4 shards at 256 workers the simulated workers meet at
// several shards and it is 13% fast (the result says so).
TEST(Analytic, AsyncPsThroughputWhenTheServerLinkIsTheBottleneck) {
  for (int servers : {1, 2}) {
    core::Plan p = async_ps(16, 20);
    p.strategy.ps_servers = servers;
    p.cluster.nodes = 16 + servers;
    core::RunResult sim = simulate(p), ana = predict_analytic(p);
    EXPECT_GT(sim.step_time_s, 2 * 0.1)
        << "comm-bound: the cycle is well above the 0.1 s of compute";
    EXPECT_NEAR(ana.throughput_samples_per_s / sim.throughput_samples_per_s, 1.0, 0.10)
        << servers << " servers";
    EXPECT_NEAR(ana.staleness.mean / sim.staleness.mean, 1.0, 0.10) << servers << " servers";
  }
}

}  // namespace
}  // namespace scaleout::sim
