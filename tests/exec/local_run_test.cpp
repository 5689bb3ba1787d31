// Executed runs on loopback: every strategy moves real floats over Gloo and ends with exact sums.
#include "exec/local_run.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "core/model/step_model.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/plan/input_error.hpp"
#include "exec/stuck_rank.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::exec {
namespace {

core::Plan small_plan(core::StrategyKind kind, int workers) {
  core::Plan p =
      testing::collective_plan(testing::switch_cluster(2, 1.25e9, 5e-6), kind, workers, 100003);
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
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kTorus2d,
                    core::StrategyKind::kHierarchicalRing, core::StrategyKind::kHalvingDoubling,
                    core::StrategyKind::kTree, core::StrategyKind::kPs,
                    core::StrategyKind::kHierarchicalAllreduce,
                    core::StrategyKind::kHierarchicalHalvingDoubling})
    for (int n : {2, 3, 4}) {
      if (kind == core::StrategyKind::kHierarchicalRing && n == 3)
        continue;  // nodes of 2: not whole
      SCOPED_TRACE(std::string(core::strategy_name(kind)) + " with " + std::to_string(n) +
                   " workers");
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
      for (const char* key : {"engine", "strategy", "workers", "bytes", "step_time_s",
                              "throughput_samples_per_s", "scaling_efficiency", "phases",
                              "algbw_Bps", "busbw_Bps", "staleness", "steps", "links", "wrong"})
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
  for (Mode m : {Mode{"async", 1, core::PsMode::kAsync, 0, 0, -1},
                 Mode{"async 2 shards", 2, core::PsMode::kAsync, 0, 0, -1},
                 Mode{"backup workers", 2, core::PsMode::kSync, 2, 0, -1},
                 Mode{"softsync", 1, core::PsMode::kSync, 0, 3, -1},
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
    // The rates as the simulator and the closed form define them (backup workers' dropped
    // gradients count in neither throughput nor efficiency).
    testing::expect_rates_from_applied(r, plan.training.batch_per_worker, plan.training.steps);
  }
}

TEST(LocalRun, AKilledRankFailsTheRunNamingIt) {
  core::Plan plan = small_plan(core::StrategyKind::kRing, 3);
  plan.training.steps = 3;
  ExecOptions o = quick();
  o.timeout = std::chrono::milliseconds(3000);
  o.faults.kill_rank = 1;
  o.faults.kill_step = 1;
  auto t0 = std::chrono::steady_clock::now();
  try {
    run_local(plan, o);
    FAIL() << "the run did not fail";
  } catch (const RunFailed& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

// A rank that stops (SIGSTOP: alive, sending nothing) is named as the one the others waited on,
// not the first rank whose transfer timed out, nor with only Gloo's "Read timeout [host]:port".
TEST(LocalRun, AStoppedRankIsNamedAsTheOneThatSentNothing) {
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kHalvingDoubling}) {
    core::Plan plan = small_plan(kind, 4);
    plan.training.steps = 4;
    ExecOptions o = quick();
    o.timeout = std::chrono::milliseconds(2000);
    o.faults.stop_rank = 2;
    o.faults.stop_step = 1;
    try {
      run_local(plan, o);
      ADD_FAILURE() << "the run did not fail";
    } catch (const RunFailed& e) {
      std::string what = e.what();
      EXPECT_EQ(what.rfind("rank 2 sent nothing for 2 s (its process is stopped)", 0), 0) << what;
    }
  }
}

// Without a stopped process, the rank the others' errors name as the peer they waited on.
TEST(LocalRun, TheRankOthersWaitedOnIsNamed) {
  std::map<pid_t, int> running{{::getpid(), 3}, {1, 0}};  // pid 1 (init) is not stopped
  std::vector<std::string> errors{"", "rank 1: no receive from rank 3 within 3000 ms (x)",
                                  "rank 2: no send to rank 3 within 3000 ms (x)", ""};
  EXPECT_EQ(stuck_rank(running, errors, std::chrono::milliseconds(3000)),
            "rank 3 sent nothing for 3 s (ranks 1, 2 waited on it)");
  errors[3] = "rank 3: no receive from rank 0 within 3000 ms (x)";  // it waited too: on rank 0
  EXPECT_EQ(stuck_rank(running, errors, std::chrono::milliseconds(3000)),
            "rank 0 sent nothing for 3 s (rank 3 waited on it)");
  errors[0] = "rank 0: wrong sums";  // every running rank has its own error: none is clear
  EXPECT_EQ(stuck_rank(running, errors, std::chrono::milliseconds(3000)), "");
}

// Half-precision gradients move as halves: the result counts the bytes that moved (2 per
// element, as the simulator counts them) and every element is the exact sum in that precision.
TEST(LocalRun, HalfPrecisionGradientsMoveAsHalvesWithExactSums) {
  for (const char* precision : {"fp16", "bf16"})
    for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kHalvingDoubling,
                      core::StrategyKind::kPs}) {
      SCOPED_TRACE(std::string(precision) + " " + core::strategy_name(kind));
      core::Plan plan = small_plan(kind, 4);
      plan.training.gradient_precision = precision;
      plan.training.gradient_bytes_per_element = 2;
      ExecOptions o = quick();
      o.baselines = kind == core::StrategyKind::kRing;
      core::RunResult r = run_local(plan, o);
      EXPECT_EQ(r.wrong, 0);
      EXPECT_EQ(r.precision, precision);
      EXPECT_DOUBLE_EQ(r.bytes, 100003.0 * 2);
      EXPECT_DOUBLE_EQ(r.bytes, core::result_header(plan, "sim", "", 0).bytes);
      // busbw as nccl-tests defines it, from the bytes that moved.
      EXPECT_NEAR(r.busbw_Bps, r.bytes / r.phases.comm_s * 2 * 3 / 4, r.busbw_Bps * 1e-9);
      if (kind == core::StrategyKind::kRing && std::string(precision) == "fp16") {
        ASSERT_EQ(r.baselines.size(), 2u);  // Gloo's own, in halves too
        for (const auto& b : r.baselines) EXPECT_EQ(b.wrong, 0) << b.name;
      }
    }
}

// With overlap the buckets leave while backward still computes, on a thread beside the exchange:
// exact sums, a timeline with every bucket's exchange, and the exchange overlapping the compute.
TEST(LocalRun, OverlappedBucketsExchangeWhileBackwardComputes) {
  core::Plan plan = small_plan(core::StrategyKind::kRing, 3);
  plan.training.overlap = true;
  plan.training.fusion_buffer = 100003.0 * 4;  // one bucket per even slice of backward
  plan.workload.flops_per_sample = 2e9;
  ExecOptions o = quick();
  o.trace_path = ::testing::TempDir() + "overlap-trace.json";
  core::RunResult r = run_local(plan, o);
  EXPECT_EQ(r.wrong, 0);
  std::ifstream in(o.trace_path);
  nlohmann::json trace = nlohmann::json::parse(in);
  int buckets = 0;
  double first_exchange = 1e9, backward_end = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("tid", -1) != 0 || e.value("ph", "") != "X") continue;
    std::string name = e["name"];
    double start = e["ts"].get<double>(), end = start + e["dur"].get<double>();
    if (name.rfind("exchange bucket", 0) == 0) {
      ++buckets;
      first_exchange = std::min(first_exchange, start);
    }
    if (name == "backward") backward_end = std::max(backward_end, end);
  }
  EXPECT_EQ(buckets, core::kEvenSlices * plan.training.steps);
  EXPECT_LT(first_exchange, backward_end);  // the first bucket left before backward ended
}

// A parameter-server training run writes its timeline too: pulls, compute and pushes per worker.
TEST(LocalRun, ParameterServerRunsWriteATrace) {
  core::Plan plan = small_plan(core::StrategyKind::kPs, 3);
  plan.strategy.ps_mode = core::PsMode::kAsync;
  ExecOptions o = quick();
  o.trace_path = ::testing::TempDir() + "ps-trace.json";
  core::RunResult r = run_local(plan, o);
  EXPECT_EQ(r.wrong, 0);
  std::ifstream in(o.trace_path);
  ASSERT_TRUE(in.good()) << "no trace written";
  nlohmann::json trace = nlohmann::json::parse(in);
  int pushes = 0;
  for (const auto& e : trace["traceEvents"]) pushes += e.value("name", "") == "push";
  EXPECT_EQ(pushes, 3 * plan.training.steps);
}

}  // namespace
}  // namespace scaleout::exec
