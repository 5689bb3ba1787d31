// Sharded sweeps and their merge: the merged CSV is the whole sweep's, row for row; shards that do
// not make one grid (missing, foreign, twice) are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "explore/sweep.hpp"
#include "explore/sweep_csv.hpp"
#include "explore/sweep_merge.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

namespace fs = std::filesystem;

std::vector<std::vector<std::string>> rows_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::vector<std::string>> out;
  for (std::string line; std::getline(in, line);) out.push_back(split_row(line));
  return out;
}

fs::path temp(const std::string& name) { return fs::temp_directory_path() / name; }

// The grid of the test: three kinds over worker counts; `dir` holds whole.csv and shard-k.csv.
struct ShardedSweep {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  SweepOptions options;
  std::string name;

  ShardedSweep(Engine engine, std::vector<int> workers, std::string tag) : name(std::move(tag)) {
    options.engine = engine;
    options.workers = std::move(workers);
    options.strategies = {core::StrategyKind::kRing, core::StrategyKind::kPs,
                          core::StrategyKind::kTorus2d};
  }
  fs::path whole() const { return temp("scaleout-shard-" + name + "-whole.csv"); }
  fs::path shard(int k) const {
    return temp("scaleout-shard-" + name + "-" + std::to_string(k) + ".csv");
  }
  void run_whole() {
    SweepOptions o = options;
    o.csv_path = whole().string();
    ASSERT_TRUE(run_sweep(plan, o).errors.empty());
  }
  std::vector<std::string> run_shards(int n) {
    std::vector<std::string> paths;
    for (int k = 0; k < n; ++k) {
      SweepOptions o = options;
      o.csv_path = shard(k).string();
      o.shard = Shard{k, n};
      EXPECT_TRUE(run_sweep(plan, o).errors.empty());
      paths.push_back(o.csv_path);
    }
    return paths;
  }
};

std::string merge_error(const fs::path& out, const std::vector<std::string>& shards) {
  try {
    merge_shards(out.string(), shards);
  } catch (const MergeError& e) {
    return e.what();
  }
  return "(merged)";
}

// Every column but wall_s (how long the point took to compute) is the same, in the same order.
// `finish_order`: the whole sweep ran simulations side by side and wrote each row as it finished,
// so its rows are compared in the merged file's order (the grid's).
void expect_same_rows(const fs::path& merged, const fs::path& whole, bool finish_order = false) {
  auto a = rows_of(merged), b = rows_of(whole);
  ASSERT_EQ(a.size(), b.size());
  if (finish_order) {
    auto grid_index = [&](const std::vector<std::string>& row) {
      for (std::size_t i = 1; i < a.size(); ++i)
        if (a[i][1] == row[1] && a[i][2] == row[2]) return i;
      return a.size();
    };
    std::sort(b.begin() + 1, b.end(),
              [&](const auto& x, const auto& y) { return grid_index(x) < grid_index(y); });
  }
  std::size_t wall = 12;
  ASSERT_EQ(sweep_columns()[wall], "wall_s");
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), sweep_columns().size()) << "row " << i;
    if (i > 0) a[i][wall] = b[i][wall] = "";
    EXPECT_EQ(a[i], b[i]) << "row " << i;
  }
}

TEST(ShardedSweep, MergedEqualsTheWholeSweepRowForRow) {
  for (int n : {1, 4, 7}) {  // 7: more shards than points of one kind, and an uneven split
    ShardedSweep s(Engine::kAnalytic, {8, 16, 32, 64, 128, 256, 512, 1024}, "analytic");
    s.run_whole();
    auto shards = s.run_shards(n);
    fs::path merged = temp("scaleout-shard-merged.csv");
    MergeSummary m = merge_shards(merged.string(), shards);
    EXPECT_EQ(m.rows, 24u);
    expect_same_rows(merged, s.whole());
  }
}

TEST(ShardedSweep, SimulatedShardsMergeToTheWholeSweep) {
  ShardedSweep s(Engine::kSim, {8, 16}, "sim");
  s.run_whole();
  fs::path merged = temp("scaleout-shard-sim-merged.csv");
  merge_shards(merged.string(), s.run_shards(4));
  expect_same_rows(merged, s.whole(), /*finish_order=*/true);
}

TEST(ShardedSweep, AMissingShardIsRefusedByName) {
  ShardedSweep s(Engine::kAnalytic, {8, 16, 32, 64}, "missing");
  auto shards = s.run_shards(3);
  fs::path out = temp("scaleout-shard-missing-out.csv");
  fs::remove(out);
  std::string why = merge_error(out, {shards[0], shards[2]});
  EXPECT_NE(why.find("shard 1/3 is missing"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(out));
  // A shard cut short (its first row kept): its missing points are named.
  std::string first_row;
  {
    std::ifstream in(shards[1]);
    std::getline(in, first_row);
    std::getline(in, first_row);
  }
  std::ofstream(shards[1], std::ios::trunc) << sweep_header(true) << "\n" << first_row << "\n";
  why = merge_error(out, shards);
  EXPECT_NE(why.find("shard 1/3: points 4, 7, 10 are missing"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(out));
}

TEST(ShardedSweep, AShardOfAnotherPlanOrGridIsRefused) {
  ShardedSweep s(Engine::kAnalytic, {8, 16, 32, 64}, "foreign");
  auto shards = s.run_shards(2);
  ShardedSweep other(Engine::kAnalytic, {8, 16, 32, 64}, "foreign-plan");
  other.plan.training.batch_per_worker *= 2;
  auto foreign = other.run_shards(2);
  fs::path out = temp("scaleout-shard-foreign-out.csv");
  fs::remove(out);
  std::string why = merge_error(out, {shards[0], foreign[1]});
  EXPECT_NE(why.find("another plan"), std::string::npos) << why;
  EXPECT_NE(why.find(foreign[1]), std::string::npos) << why;
  ShardedSweep grid(Engine::kAnalytic, {8, 16, 32, 128}, "foreign-grid");
  why = merge_error(out, {shards[0], grid.run_shards(2)[1]});
  EXPECT_NE(why.find("another grid"), std::string::npos) << why;
  ShardedSweep split(Engine::kAnalytic, {8, 16, 32, 64}, "foreign-split");
  why = merge_error(out, {shards[0], split.run_shards(3)[1]});
  EXPECT_NE(why.find("split the same way"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(out));
}

TEST(ShardedSweep, APointTwiceIsRefusedAndAnUnshardedCsvIsNotAShard) {
  ShardedSweep s(Engine::kAnalytic, {8, 16}, "twice");
  auto shards = s.run_shards(2);
  fs::path out = temp("scaleout-shard-twice-out.csv");
  std::string why = merge_error(out, {shards[0], shards[1], shards[1]});
  EXPECT_NE(why.find("duplicated: point 1 (ring, 16 workers)"), std::string::npos) << why;
  s.run_whole();
  try {
    merge_shards(out.string(), {s.whole().string()});
    ADD_FAILURE() << "merged an unsharded CSV";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unsharded"), std::string::npos) << e.what();
  }
}

TEST(ShardedSweep, ResumingAShardKeepsItsRowsAndRefusesAnotherShardsFile) {
  ShardedSweep s(Engine::kAnalytic, {8, 16, 32, 64}, "resume");
  auto shards = s.run_shards(2);
  SweepOptions o = s.options;
  o.shard = Shard{0, 2};
  o.resume = true;
  o.csv_path = shards[0];
  SweepSummary again = run_sweep(s.plan, o);
  EXPECT_EQ(again.rows.size(), 0u);
  EXPECT_EQ(again.skipped, 6);
  o.csv_path = shards[1];
  EXPECT_THROW(run_sweep(s.plan, o), std::runtime_error);
  o.shard = Shard{2, 2};
  EXPECT_THROW(run_sweep(s.plan, o), core::InputError);
}

}  // namespace
}  // namespace scaleout::sim
