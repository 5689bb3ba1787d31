// Sweeps over plan fields (`--vary`): the grid is the cross product, each row is the prediction of
// the plan with those fields set, the values are columns, and resume and shards know them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analytic/analytic.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_variation.hpp"
#include "explore/sweep.hpp"
#include "explore/sweep_csv.hpp"
#include "explore/sweep_merge.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

namespace fs = std::filesystem;

core::Plan quickstart() {
  return core::load_plan(testing::source_path("experiments/quickstart.yaml"));
}

core::Plan transformer_plan() { return testing::small_transformer_plan("sweep-vary", "16GB"); }

std::vector<std::vector<std::string>> rows_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::vector<std::string>> out;
  for (std::string line; std::getline(in, line);) out.push_back(split_row(line));
  return out;
}

TEST(PlanVariation, SetsFieldsByTheirDottedNames) {
  core::Plan base = quickstart();
  EXPECT_EQ(core::resolve_field(base, "nic.bandwidth", "10Gbps", "--vary"),
            "cluster.nic.bandwidth");
  EXPECT_EQ(core::resolve_field(base, "training.fusion_buffer", "4MiB", "--vary"),
            "training.fusion_buffer");
  core::Plan p = core::vary_plan(
      base, {{"cluster.nic.bandwidth", "10Gbps"}, {"training.fusion_buffer", "4MiB"}}, "--vary");
  EXPECT_DOUBLE_EQ(p.cluster.nic.bandwidth, 10e9 / 8);
  EXPECT_DOUBLE_EQ(p.training.fusion_buffer, 4.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(p.cluster.intra_node.bandwidth, base.cluster.intra_node.bandwidth);
  // A field the plan does not spell out yet: its section is made.
  core::Plan t = core::vary_plan(transformer_plan(), {{"parallelism.pipeline", "4"}}, "--vary");
  ASSERT_TRUE(t.parallelism.has_value());
  EXPECT_EQ(t.parallelism->pipeline, 4);
  EXPECT_EQ(t.parallelism->tensor, 1);
}

TEST(PlanVariation, RefusesFieldsThatDoNotExistByName) {
  core::Plan base = quickstart();
  try {
    core::resolve_field(base, "parallelism.tensr", "2", "--vary");
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no field 'parallelism.tensr'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(core::resolve_field(base, "training.workers", "8", "--vary"), core::InputError);
  EXPECT_THROW(core::resolve_field(base, "strategy.kind", "ring", "--vary"), core::InputError);
  // A field that exists with a value the loader refuses: the message names both.
  try {
    core::vary_plan(base, {{"cluster.nic.bandwidth", "fast"}}, "--vary");
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("--vary cluster.nic.bandwidth=fast: ", 0), 0u) << what;
    EXPECT_NE(what.find("nic.bandwidth"), std::string::npos) << what;
  }
}

TEST(SweepVary, EachRowIsThePredictionOfItsVariedPlan) {
  core::Plan base = transformer_plan();
  SweepOptions o;
  o.engine = Engine::kAnalytic;
  o.workers = {16, 32};
  o.strategies = {core::StrategyKind::kRing};
  o.vary = {{"parallelism.tensor", {"1", "2"}}, {"parallelism.pipeline", {"1", "2", "4"}}};
  fs::path csv = fs::temp_directory_path() / "scaleout-sweep-vary.csv";
  o.csv_path = csv.string();
  SweepSummary s = run_sweep(base, o);
  ASSERT_TRUE(s.errors.empty()) << s.errors.front();
  ASSERT_EQ(s.rows.size(), 12u);
  auto rows = rows_of(csv);
  ASSERT_EQ(rows.size(), 13u);
  std::size_t base_columns = sweep_columns().size();
  EXPECT_EQ(rows[0][base_columns], "parallelism.tensor");
  EXPECT_EQ(rows[0][base_columns + 1], "parallelism.pipeline");
  std::size_t i = 0;
  for (const char* tensor : {"1", "2"})
    for (const char* pipeline : {"1", "2", "4"})
      for (int workers : {16, 32}) {
        const auto& row = rows[++i];
        EXPECT_EQ(row[base_columns], tensor);
        EXPECT_EQ(row[base_columns + 1], pipeline);
        EXPECT_EQ(row[2], std::to_string(workers));
        EXPECT_EQ(s.row_values[i - 1], (std::vector<std::string>{tensor, pipeline}));
        core::Plan p = core::vary_plan(
            base, {{"parallelism.tensor", tensor}, {"parallelism.pipeline", pipeline}}, "--vary");
        p.training.workers = workers;
        EXPECT_NEAR(s.rows[i - 1].step_time_s / predict_analytic(p).step_time_s, 1.0, 1e-12);
      }
  // Resumed with one more value: only the new rows run.
  o.resume = true;
  o.vary[1].values.push_back("8");
  SweepSummary more = run_sweep(base, o);
  EXPECT_EQ(more.skipped, 12);
  EXPECT_EQ(more.rows.size(), 4u);
  fs::remove(csv);
}

TEST(SweepVary, AValueThatDoesNotLoadSkipsItsRowsAndSaysWhy) {
  SweepOptions o;
  o.engine = Engine::kAnalytic;
  o.workers = {32};
  o.strategies = {core::StrategyKind::kRing};
  o.vary = {{"parallelism.tensor", {"3", "2"}}};
  SweepSummary s = run_sweep(transformer_plan(), o);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.row_values[0], std::vector<std::string>{"2"});
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_EQ(s.errors[0].rfind("--vary parallelism.tensor=3: ", 0), 0u) << s.errors[0];
  // A plan that loads but does not fit: the row is skipped with the field, not the temporary
  // file the varied plan was read from.
  o.vary = {{"cluster.device.memory", {"1GB"}}};
  SweepSummary tight = run_sweep(transformer_plan(), o);
  ASSERT_EQ(tight.errors.size(), 1u);
  EXPECT_NE(tight.errors[0].find("field 'device.memory': does not fit"), std::string::npos)
      << tight.errors[0];
  EXPECT_EQ(tight.errors[0].find("scaleout-edit"), std::string::npos) << tight.errors[0];
  o.vary.push_back({"cluster.device.memory", {"2GB"}});
  EXPECT_THROW(run_sweep(transformer_plan(), o), core::InputError);  // varied twice
}

TEST(SweepVary, ShardsOfAVariedSweepMergeIntoTheWholeSweep) {
  core::Plan base = quickstart();
  SweepOptions o;
  o.engine = Engine::kAnalytic;
  o.workers = {8, 16, 32};
  o.strategies = {core::StrategyKind::kRing, core::StrategyKind::kTorus2d};
  o.vary = {{"cluster.nic.bandwidth", {"10Gbps", "100Gbps"}}};
  fs::path dir = fs::temp_directory_path() / "scaleout-sweep-vary-shards";
  fs::create_directories(dir);
  o.csv_path = (dir / "whole.csv").string();
  run_sweep(base, o);
  std::vector<std::string> shards;
  for (int k = 0; k < 3; ++k) {
    SweepOptions part = o;
    part.shard = Shard{k, 3};
    part.csv_path = (dir / ("shard-" + std::to_string(k) + ".csv")).string();
    run_sweep(base, part);
    shards.push_back(part.csv_path);
  }
  merge_shards((dir / "merged.csv").string(), shards);
  auto whole = rows_of(dir / "whole.csv"), merged = rows_of(dir / "merged.csv");
  ASSERT_EQ(whole.size(), 13u);
  ASSERT_EQ(merged.size(), whole.size());
  std::size_t wall = 12;  // wall_s differs from run to run
  for (std::size_t r = 0; r < whole.size(); ++r) {
    ASSERT_EQ(merged[r].size(), whole[r].size());
    for (std::size_t c = 0; c < whole[r].size(); ++c)
      if (r == 0 || c != wall) EXPECT_EQ(merged[r][c], whole[r][c]) << r << "," << c;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scaleout::sim
