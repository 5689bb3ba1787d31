// An interrupted command leaves no temporary file behind: `simulate`, `sweep` and `run` are
// started with a private TMPDIR, stopped by SIGINT or SIGTERM while their temporary files exist,
// and the folder must then be empty (also a moment later: no child process writes there after).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_plans.hpp"

namespace {

namespace fs = std::filesystem;
using scaleout::testing::source_path;

const std::string kQuickstart = source_path("experiments/quickstart.yaml");

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

// Starts `scaleout ARGS...` with TMPDIR=tmp; waits until a file named prefix* appears there (or
// 30 s), sends `sig`, and returns the wait status.
int interrupt(const std::vector<std::string>& args, const fs::path& tmp, const std::string& prefix,
              int sig) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("TMPDIR", tmp.c_str(), 1);
    std::vector<char*> argv{const_cast<char*>(SCALEOUT_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(SCALEOUT_BINARY, argv.data());
    std::_Exit(127);
  }
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool seen = false;
  while (!seen && std::chrono::steady_clock::now() < until) {
    for (const auto& name : entries(tmp)) seen = seen || name.rfind(prefix, 0) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(seen) << "no " << prefix << "* appeared in " << tmp;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // well into its work
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

class Interrupted : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '-');
    tmp_ = fs::temp_directory_path() / ("scaleout-interrupt-" + name);
    fs::remove_all(tmp_);
    fs::create_directories(tmp_ / "tmp");
  }
  void TearDown() override { fs::remove_all(tmp_); }

  void expect_clean(int status) {
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == GetParam())
        << "status " << status << ": the command should end by the signal, as before";
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(entries(tmp_ / "tmp"), std::vector<std::string>{});
  }

  fs::path tmp_;
};

TEST_P(Interrupted, SimulateLeavesNoTemporaryFile) {
  int status = interrupt({"simulate", kQuickstart, "--workers", "1024", "--fidelity", "step",
                          "--max-events", "1e9", "-o", (tmp_ / "result.json").string()},
                         tmp_ / "tmp", "scaleout-sim-", GetParam());
  expect_clean(status);
  EXPECT_FALSE(fs::exists(tmp_ / "result.json"));
}

TEST_P(Interrupted, SweepLeavesNoTemporaryFile) {
  int status = interrupt(
      {"sweep", kQuickstart, "--workers", "512,1024", "--strategies", "ring,torus2d", "--fidelity",
       "step", "--max-events", "1e9", "-j", "2", "-q", "-o", (tmp_ / "sweep.csv").string()},
      tmp_ / "tmp", "scaleout-sim-", GetParam());
  expect_clean(status);
}

TEST_P(Interrupted, RunLeavesNoTemporaryFile) {
  int status = interrupt({"run", kQuickstart, "--workers", "4", "--strategy", "ring", "-o",
                          (tmp_ / "measured.json").string()},
                         tmp_ / "tmp", "scaleout-run-", GetParam());
  expect_clean(status);
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupted, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) {
                           return info.param == SIGINT ? "SIGINT" : "SIGTERM";
                         });

}  // namespace
