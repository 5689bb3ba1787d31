#include "explore/sweep.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

namespace fs = std::filesystem;

// A sweep of `strategies` over `workers` on `engine`, the other options their defaults.
SweepOptions sweep_options(std::vector<int> workers, std::vector<core::StrategyKind> strategies,
                           Engine engine) {
  SweepOptions o;
  o.workers = std::move(workers);
  o.strategies = std::move(strategies);
  o.engine = engine;
  return o;
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The first `n` comma-separated fields of a CSV row.
std::vector<std::string> fields_of(const std::string& line, int n) {
  std::stringstream in(line);
  std::vector<std::string> out(n);
  for (auto& f : out) std::getline(in, f, ',');
  return out;
}

TEST(WorkerList, RangesAndLists) {
  EXPECT_EQ(parse_worker_list("8:64:x2"), (std::vector<int>{8, 16, 32, 64}));
  EXPECT_EQ(parse_worker_list("8:30:+8"), (std::vector<int>{8, 16, 24}));
  EXPECT_EQ(parse_worker_list("3,5,100"), (std::vector<int>{3, 5, 100}));
  EXPECT_THROW(parse_worker_list("8:64"), core::InputError);
  EXPECT_THROW(parse_worker_list("8:64:x1"), core::InputError);
  EXPECT_THROW(parse_worker_list("eight"), core::InputError);
  EXPECT_THROW(parse_worker_list("0,4"), core::InputError);
}

// Points SimGrid refuses (here: more messages than the cap) are errors of their own, found before
// any simulation starts; the points it takes still run.
TEST(Sweep, PointsTheSimulatorRefusesAreReportedBeforeAnyRuns) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  SweepOptions o = sweep_options({8, 64}, {core::StrategyKind::kRing}, Engine::kSim);
  o.fidelity = Fidelity::kStep;
  o.max_events = 2000;  // 8 ranks' step-by-step ring fits, 64 ranks' does not
  std::size_t total = 0;
  o.on_progress = [&](std::size_t, std::size_t of) { total = of; };
  SweepSummary s = run_sweep(plan, o);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].workers, 8);
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_NE(s.errors[0].find("ring,64"), std::string::npos) << s.errors[0];
  EXPECT_NE(s.errors[0].find("messages"), std::string::npos) << s.errors[0];
  EXPECT_EQ(total, 1u);  // the refused point never counted as one to run
}

TEST(Sweep, CsvHasTheDocumentedColumnsAndOneRowPerPoint) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  fs::path csv = fs::temp_directory_path() / "scaleout-sweep-columns.csv";
  SweepOptions o = sweep_options({8, 16, 32}, {core::StrategyKind::kRing, core::StrategyKind::kPs},
                                 Engine::kSim);
  o.jobs = 2;
  o.csv_path = csv.string();
  SweepSummary s = run_sweep(plan, o);
  EXPECT_TRUE(s.errors.empty());
  EXPECT_EQ(s.rows.size(), 6u);
  auto lines = lines_of(csv);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0].rfind("engine,strategy,workers,step_time_s,throughput_samples_per_s,scaling_"
                           "efficiency,busbw_Bps,staleness_mean",
                           0),
            0u);
  std::set<std::string> keys;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto f = fields_of(lines[i], 3);  // engine, strategy, workers
    EXPECT_EQ(f[0], "sim");
    keys.insert(f[1] + "/" + f[2]);
  }
  EXPECT_EQ(keys.size(), 6u);
  fs::remove(csv);
}

TEST(Sweep, ResumeAfterAnInterruptionCompletesWithoutDuplicates) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  fs::path csv = fs::temp_directory_path() / "scaleout-sweep-resume.csv";
  SweepOptions o =
      sweep_options(parse_worker_list("8:512:x2"),
                    {core::StrategyKind::kRing, core::StrategyKind::kTorus2d}, Engine::kAnalytic);
  o.csv_path = csv.string();
  run_sweep(plan, o);
  auto full = lines_of(csv);
  ASSERT_EQ(full.size(), 1u + 14u);

  // An interruption: five complete rows and half of the sixth survive.
  {
    std::ofstream out(csv, std::ios::trunc);
    for (int i = 0; i < 6; ++i) out << full[i] << "\n";
    out << full[6].substr(0, full[6].size() / 2);
  }
  o.resume = true;
  SweepSummary s = run_sweep(plan, o);
  EXPECT_EQ(s.skipped, 5);
  EXPECT_EQ(s.rows.size(), 9u);
  auto resumed = lines_of(csv);
  ASSERT_EQ(resumed.size(), full.size());
  std::set<std::string> keys;
  for (std::size_t i = 1; i < resumed.size(); ++i) {
    auto f = fields_of(resumed[i], 3);  // engine, strategy, workers
    keys.insert(f[1] + "/" + f[2]);
  }
  EXPECT_EQ(keys.size(), 14u);
  fs::remove(csv);
}

TEST(Sweep, AnalyticRowsMatchOneOffPredictions) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  SweepOptions o =
      sweep_options({16, 128}, {core::StrategyKind::kHierarchicalRing}, Engine::kAnalytic);
  SweepSummary s = run_sweep(plan, o);
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_GT(s.rows[1].step_time_s, s.rows[0].step_time_s);
}

// Callbacks see every row and the progress as rows finish, on the caller's thread.
TEST(Sweep, CallbacksSeeEveryRowAndTheProgress) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  SweepOptions o = sweep_options(
      {8, 16, 32}, {core::StrategyKind::kRing, core::StrategyKind::kTorus2d}, Engine::kSim);
  std::vector<std::string> seen;
  std::vector<std::size_t> done;
  o.on_row = [&](const core::RunResult& r) {
    seen.push_back(r.strategy + "/" + std::to_string(r.workers));
  };
  o.on_progress = [&](std::size_t d, std::size_t total) {
    EXPECT_EQ(total, 6u);
    done.push_back(d);
  };
  SweepSummary s = run_sweep(plan, o);
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_EQ(done, (std::vector<std::size_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(s.cancelled);
}

// Points that take seconds: about every half second, the messages the running points have sent
// against their estimates, both summed, never more than the estimates allow.
TEST(Sweep, RunningPointsReportTheMessagesTheyHaveSent) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  // Step fidelity: 2 x 127 and 2 x 255 messages per rank and bucket.
  SweepOptions o = sweep_options({128, 256}, {core::StrategyKind::kRing}, Engine::kSim);
  o.fidelity = Fidelity::kStep;
  std::vector<ProgressReport> seen;
  o.on_running = [&](const ProgressReport& r) { seen.push_back(r); };
  SweepSummary s = run_sweep(plan, o);
  ASSERT_EQ(s.rows.size(), 2u);
  ASSERT_FALSE(seen.empty()) << "a 256-rank ring at step fidelity takes seconds here";
  bool counted = false;
  for (const ProgressReport& r : seen) {
    EXPECT_GT(r.estimated_messages, 0);
    EXPECT_LE(static_cast<double>(r.messages), r.estimated_messages * 1.2);
    counted = counted || r.messages > 0;
  }
  EXPECT_TRUE(counted);
}

// Cancel from another thread: no new row starts, running simulations are killed, finished rows
// stay, and a child process of the caller's own is left alone (the sweep reaps only its own).
TEST(Sweep, CancelStopsSoonKeepsFinishedRowsAndLeavesOtherChildrenAlone) {
  pid_t other = ::fork();
  if (other == 0) {
    ::sleep(30);
    ::_exit(7);
  }
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  SweepOptions o =
      sweep_options(parse_worker_list("8:4096:x2"),
                    {core::StrategyKind::kRing, core::StrategyKind::kPs}, Engine::kSim);
  o.jobs = 2;  // the second simulation is running when the first row cancels: it is killed
  std::atomic<bool> cancel{false};
  o.cancel = &cancel;
  o.on_row = [&](const core::RunResult&) { cancel = true; };  // cancel after the first row
  auto t0 = std::chrono::steady_clock::now();
  SweepSummary s = run_sweep(plan, o);
  EXPECT_TRUE(s.cancelled);
  EXPECT_EQ(s.rows.size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  int status = 0;
  EXPECT_EQ(::waitpid(other, &status, WNOHANG), 0)
      << "the sweep reaped a child that was not its own";
  ::kill(other, SIGKILL);
  ::waitpid(other, &status, 0);
}

// A second sweep on the same CSV is refused while the first holds it; nothing is written.
TEST(Sweep, ASecondWriterOfTheSameCsvIsRefused) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  fs::path csv = fs::temp_directory_path() / "scaleout-sweep-locked.csv";
  fs::remove(csv);
  int held = ::open(csv.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);  // as the first sweep holds it
  SweepOptions o = sweep_options({8}, {core::StrategyKind::kRing}, Engine::kAnalytic);
  o.csv_path = csv.string();
  try {
    run_sweep(plan, o);
    ADD_FAILURE() << "the second writer was not refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("another sweep is writing"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(fs::file_size(csv), 0u);
  ::close(held);
  EXPECT_EQ(run_sweep(plan, o).rows.size(), 1u);  // once released, it runs
  fs::remove(csv);
}

// Rows broken by an interleaving writer are not counted as done: resume cuts them out and runs
// their points again, leaving only whole rows.
TEST(Sweep, ResumeDropsBrokenRowsAndRunsTheirPointsAgain) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  fs::path csv = fs::temp_directory_path() / "scaleout-sweep-broken.csv";
  SweepOptions o = sweep_options({8, 16, 32, 64}, {core::StrategyKind::kRing}, Engine::kAnalytic);
  o.csv_path = csv.string();
  run_sweep(plan, o);
  auto full = lines_of(csv);
  ASSERT_EQ(full.size(), 5u);
  {
    std::ofstream out(csv, std::ios::trunc);
    out << full[0] << "\n" << full[1] << "\n";
    out << full[2].substr(0, full[2].size() / 2) << full[3] << "\n";  // half a row, then another
    out << full[4] << "\n";
  }
  o.resume = true;
  SweepSummary s = run_sweep(plan, o);
  EXPECT_EQ(s.skipped, 2);  // rows 1 and 4 were whole
  EXPECT_EQ(s.rows.size(), 2u);
  auto resumed = lines_of(csv);
  ASSERT_EQ(resumed.size(), 5u);
  std::set<std::string> keys;
  for (std::size_t i = 1; i < resumed.size(); ++i) {
    EXPECT_EQ(std::count(resumed[i].begin(), resumed[i].end(), ','),
              std::count(full[1].begin(), full[1].end(), ','));
    keys.insert(fields_of(resumed[i], 3)[2]);
  }
  EXPECT_EQ(keys, (std::set<std::string>{"8", "16", "32", "64"}));
  fs::remove(csv);
}

// Every row carries the plan's hash: resuming with another plan is refused; the same plan with
// more points resumes (the grid may grow).
TEST(Sweep, ResumeWithAnotherPlanIsRefused) {
  core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
  fs::path csv = fs::temp_directory_path() / "scaleout-sweep-hash.csv";
  fs::remove(csv);
  SweepOptions o = sweep_options({8, 16}, {core::StrategyKind::kRing}, Engine::kAnalytic);
  o.csv_path = csv.string();
  run_sweep(plan, o);
  o.resume = true;
  o.workers = {8, 16, 32};
  EXPECT_EQ(run_sweep(plan, o).rows.size(), 1u);  // same plan, one more point
  core::Plan other = plan;
  other.training.batch_per_worker *= 2;
  EXPECT_NE(sweep_plan_hash(other, o), sweep_plan_hash(plan, o));
  try {
    run_sweep(other, o);
    ADD_FAILURE() << "resumed another plan's CSV";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("another plan"), std::string::npos) << e.what();
  }
  EXPECT_EQ(lines_of(csv).size(), 4u);  // nothing added
  fs::remove(csv);
}

}  // namespace
}  // namespace scaleout::sim
