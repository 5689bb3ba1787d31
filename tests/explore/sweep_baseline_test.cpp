// Scaling efficiency against a baseline size (--baseline-workers): 1 at the baseline, and at
// every other size the ratio of per-worker throughputs computed from the rows themselves; a
// baseline the sweep does not run is refused. The CSV carries it, with the fusion, the bucket
// count and the torus grid, in columns after the documented ones.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "explore/sweep.hpp"
#include "explore/sweep_csv.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

namespace fs = std::filesystem;

SweepOptions options(Engine engine) {
  SweepOptions o;
  o.workers = {8, 16, 64, 256};
  o.strategies = {core::StrategyKind::kRing, core::StrategyKind::kTorus2d};
  o.engine = engine;
  o.baseline_workers = 16;
  return o;
}

void expect_ratios(const std::vector<core::RunResult>& rows) {
  std::map<std::string, const core::RunResult*> at_baseline;
  for (const auto& r : rows)
    if (r.workers == 16) at_baseline[r.strategy] = &r;
  ASSERT_EQ(at_baseline.size(), 2u);
  for (const auto& r : rows) {
    const core::RunResult& b = *at_baseline.at(r.strategy);
    double expected = (r.throughput_samples_per_s / r.workers) / (b.throughput_samples_per_s / 16);
    EXPECT_EQ(r.baseline_workers, 16);
    EXPECT_NEAR(r.baseline_efficiency, expected, 1e-12) << r.strategy << " " << r.workers;
    if (r.workers == 16) EXPECT_DOUBLE_EQ(r.baseline_efficiency, 1.0);
  }
}

TEST(SweepBaseline, EfficiencyAgainstTheBaselineIsTheRatioOfTheRows) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  SweepSummary s = run_sweep(plan, options(Engine::kAnalytic));
  ASSERT_EQ(s.rows.size(), 8u);
  expect_ratios(s.rows);
  // Below the baseline the ratio may pass 1; above it, a ring on one switch falls off.
  for (const auto& r : s.rows)
    if (r.workers == 256) EXPECT_LT(r.baseline_efficiency, 1.0) << r.strategy;
}

TEST(SweepBaseline, TheCsvCarriesItAndTheBucketsAndGrid) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  fs::path csv = fs::temp_directory_path() / "scaleout-sweep-baseline.csv";
  fs::remove(csv);
  SweepOptions o = options(Engine::kSim);
  o.workers = {32, 8, 16};  // the baseline runs first whatever its place in the list
  o.csv_path = csv.string();
  SweepSummary s = run_sweep(plan, o);
  ASSERT_EQ(s.rows.size(), 6u);
  expect_ratios(s.rows);
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.substr(header.find("plan_hash")),
            "plan_hash,fusion,buckets,grid,baseline_workers,baseline_efficiency,tokens_per_s,"
            "tokens_per_s_per_device,mfu,memory_bytes,bubble_s,goodput,time_to_train_s,"
            "time_to_train_p10_s,time_to_train_p50_s,time_to_train_p90_s");
  int rows = 0;
  for (std::string line; std::getline(in, line); ++rows) {
    auto f = split_row(line);
    ASSERT_TRUE(valid_sweep_row(f, false)) << line;
    const core::RunResult* r = nullptr;
    for (const auto& x : s.rows)
      if (x.strategy == f[1] && x.workers == std::stoi(f[2])) r = &x;
    ASSERT_NE(r, nullptr) << line;
    EXPECT_EQ(f[kPlanHashColumn + 1], "legacy");
    EXPECT_EQ(std::stod(f[kPlanHashColumn + 2]), r->buckets);
    EXPECT_EQ(f[kPlanHashColumn + 3], f[1] == "torus2d" ? r->grid : "-");
    EXPECT_EQ(f[kPlanHashColumn + 4], "16");
    EXPECT_NEAR(std::stod(f[kPlanHashColumn + 5]), r->baseline_efficiency, 1e-6);
    for (std::size_t i = 6; i <= 10; ++i)  // a data-parallel row has no transformer figures
      EXPECT_EQ(f[kPlanHashColumn + i], "") << i;
  }
  EXPECT_EQ(rows, 6);
  fs::remove(csv);
}

// A model-parallel row carries the transformer's figures: tokens = sequences x 2048 (GPT-3's
// sequence), per device over the 1,024 devices, and the result's MFU, memory and bubble.
TEST(SweepBaseline, AModelParallelRowCarriesTokensMfuMemoryAndBubble) {
  core::Plan plan =
      core::load_plan(testing::source_path("experiments/model-parallel/gpt3-175b.yaml"));
  fs::path csv = fs::temp_directory_path() / ("scaleout-mp-sweep-" + std::to_string(::getpid()));
  SweepOptions o;
  o.workers = {1024};
  o.strategies = {core::StrategyKind::kRing};
  o.engine = Engine::kAnalytic;
  o.csv_path = csv.string();
  SweepSummary s = run_sweep(plan, o);
  ASSERT_EQ(s.rows.size(), 1u);
  const core::RunResult& r = s.rows[0];
  ASSERT_TRUE(r.model_parallel);
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  std::getline(in, line);
  auto f = split_row(line);
  ASSERT_TRUE(valid_sweep_row(f, false)) << line;
  double sequences = std::stod(f[4]);  // throughput_samples_per_s
  EXPECT_NEAR(std::stod(f[kPlanHashColumn + 6]), sequences * 2048, 1e-6 * sequences * 2048);
  EXPECT_NEAR(std::stod(f[kPlanHashColumn + 7]), sequences * 2048 / 1024, 1e-6 * sequences * 2);
  EXPECT_NEAR(std::stod(f[kPlanHashColumn + 8]), r.model_parallel->mfu, 1e-6);
  // Nine significant digits, as every figure of the CSV.
  EXPECT_NEAR(std::stod(f[kPlanHashColumn + 9]), r.model_parallel->memory.total,
              1e-8 * r.model_parallel->memory.total);
  EXPECT_NEAR(std::stod(f[kPlanHashColumn + 10]), r.model_parallel->bubble_s,
              1e-8 * r.model_parallel->bubble_s);
  EXPECT_GT(r.model_parallel->bubble_s, 0);
  fs::remove(csv);
}

TEST(SweepBaseline, ABaselineNotSweptIsRefused) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  SweepOptions o = options(Engine::kAnalytic);
  o.baseline_workers = 12;
  try {
    run_sweep(plan, o);
    ADD_FAILURE() << "a baseline of 12 accepted for 8, 16, 64, 256";
  } catch (const core::InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("--baseline-workers"), std::string::npos) << msg;
    EXPECT_NE(msg.find("12 is not among the swept worker counts (8, 16, 64, 256)"),
              std::string::npos)
        << msg;
  }
}

}  // namespace
}  // namespace scaleout::sim
