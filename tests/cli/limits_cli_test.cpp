// Simulations sized beyond the process's limits: the heap's stacks give the same answer as guarded
// ones, and a size that cannot run is refused before it starts (exit 2, naming the limit).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace {

using scaleout::testing::Output;
using scaleout::testing::shell;

const std::string kSimulate = std::string(SCALEOUT_BINARY) + " simulate " +
                              scaleout::testing::source_path("experiments/quickstart.yaml");

// Peak resident memory in KB of `command` run to completion (its own, not the shell's), -1 when it
// failed.
long peak_rss_kb(const std::string& command) {
  std::string line = "exec " + command + " > /dev/null 2>&1";
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? usage.ru_maxrss : -1;
}

// The analytic engine keeps its memory whatever the steps: every step takes the same time, so it
// lists the first thousand and summarizes the rest (a million steps once took 254 MB more).
TEST(LimitsCli, AnalyticMemoryDoesNotGrowWithTheSteps) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("scaleout-steps-" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto plan = [&](long steps) {
    fs::path path = dir / ("steps-" + std::to_string(steps) + ".yaml");
    std::ofstream(path) << "cluster: "
                        << scaleout::testing::source_path("topologies/v100-ib-switch.yaml")
                        << "\nworkload: " << scaleout::testing::source_path("models/resnet50.yaml")
                        << "\nstrategy: { kind: ring }\ntraining: { workers: 64, steps: " << steps
                        << " }\n";
    return std::string(SCALEOUT_BINARY) + " simulate " + path.string() + " --engine analytic";
  };
  long few = peak_rss_kb(plan(10)), many = peak_rss_kb(plan(1'000'000));
  ASSERT_GT(few, 0);
  ASSERT_GT(many, 0);
  EXPECT_LT(many, 2 * few) << "10 steps: " << few << " KB, a million: " << many << " KB";
  Output o = shell(plan(1'000'000) + " -o " + (dir / "result.json").string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("the steps list holds the first 1000 of 1000000 steps"), std::string::npos)
      << o.text;
  auto j = nlohmann::json::parse(std::ifstream(dir / "result.json"));
  EXPECT_EQ(j["steps"].size(), 1000u);
  EXPECT_EQ(j["gradients"]["applied"].get<long>(), 64L * 1'000'000);
  fs::remove_all(dir);
}

TEST(LimitsCli, StacksFromTheHeapGiveTheSameAnswer) {
  Output guarded = shell(kSimulate + " --workers 1024 --json");
  // 1,025 actors do not fit in 3,000 mappings with guard pages: the stacks come from the heap.
  Output heap = shell("SCALEOUT_MAX_MAP_COUNT=3000 " + kSimulate + " --workers 1024 --json");
  ASSERT_EQ(guarded.code, 0) << guarded.text;
  ASSERT_EQ(heap.code, 0) << heap.text;
  auto a = nlohmann::json::parse(guarded.text), b = nlohmann::json::parse(heap.text);
  EXPECT_EQ(a["step_time_s"], b["step_time_s"]);
  EXPECT_EQ(a["steps"], b["steps"]);
}

// SimGrid's own options pass through --simgrid-cfg: 8 KiB stacks with guard pages (the smallest
// that held, docs/performance.md) give the default's answer; a name SimGrid lacks, or an item
// without a value (which SimGrid would abort on), is refused naming the option, in one line.
TEST(LimitsCli, SimGridsOwnOptionsPassThrough) {
  Output standard = shell(kSimulate + " --json");
  Output small = shell(kSimulate + " --simgrid-cfg contexts/stack-size:8 --json");
  ASSERT_EQ(standard.code, 0) << standard.text;
  ASSERT_EQ(small.code, 0) << small.text;
  EXPECT_EQ(nlohmann::json::parse(standard.text)["step_time_s"],
            nlohmann::json::parse(small.text)["step_time_s"]);
  for (const char* bad : {"no/such-option:1", "contexts/stack-size"}) {
    Output o = shell(kSimulate + " --simgrid-cfg " + bad);
    EXPECT_EQ(o.code, 2) << o.text;
    EXPECT_NE(o.text.find("'--simgrid-cfg'"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find(bad), std::string::npos) << o.text;
    EXPECT_EQ(std::count(o.text.begin(), o.text.end(), '\n'), 1) << o.text;
  }
}

TEST(LimitsCli, ASizeBeyondTheAddressSpaceLimitIsRefusedBeforeItStarts) {
  auto t0 = std::chrono::steady_clock::now();
  Output o = shell("prlimit --as=3221225472 " + kSimulate + " --workers 16384");  // 3 GiB
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("ulimit -v"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("Failed to protect stack"), std::string::npos) << o.text;
  EXPECT_LT(wall, 5.0) << "refused after " << wall << " s: it should not have started";
  o = shell("SCALEOUT_MAX_MAP_COUNT=100 " + kSimulate + " --workers 8");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("vm.max_map_count"), std::string::npos) << o.text;
}

}  // namespace
