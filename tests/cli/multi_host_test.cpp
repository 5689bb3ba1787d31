// Ranks started one per host, as a cluster's own launcher would, each in its emulated host's
// network namespace (its own address and rate-limited link), finding each other from TF_CONFIG and
// a shared store directory. Needs root (CI is root); elsewhere it skips and says why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace {

namespace fs = std::filesystem;
using scaleout::testing::Output;
using scaleout::testing::shell;
using scaleout::testing::source_path;

std::string binary() { return SCALEOUT_BINARY; }

class MultiHost : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0)
      GTEST_SKIP() << "skipped: the emulated cluster needs root (network namespaces, tc)";
    ASSERT_EQ(
        shell(binary() + " cluster up " + source_path("topologies/emulated-4x200mbit.yaml")).code,
        0);
    dir_ = fs::temp_directory_path() / "scaleout-multi-host";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    shell(binary() + " cluster down");
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

// TF_CONFIG for task `type`/`index` of a job of three workers (a chief and two workers) and one
// parameter server, one per emulated host.
std::string tf_config(const std::string& type, int index) {
  return "{\"cluster\": {\"chief\": [\"10.77.0.1:1\"], \"worker\": [\"10.77.0.2:1\", "
         "\"10.77.0.3:1\"], "
         "\"ps\": [\"10.77.0.4:1\"]}, \"task\": {\"type\": \"" +
         type + "\", \"index\": " + std::to_string(index) + "}}";
}

TEST_F(MultiHost, RanksInTheirOwnHostsMeetFromTfConfig) {
  fs::path plan = dir_ / "plan.yaml";
  std::ofstream(plan) << "cluster: " << source_path("topologies/emulated-4x200mbit.yaml") << "\n"
                      << "workload: { name: g, parameters: 1M, flops_per_sample: 1MFLOP }\n"
                      << "strategy: { kind: ps, mode: async, servers: 1 }\n"
                      << "training: { workers: 3, steps: 3 }\n";
  struct Task {
    const char* type;
    int index;
    int node;
  } tasks[] = {{"chief", 0, 0}, {"worker", 0, 1}, {"worker", 1, 2}, {"ps", 0, 3}};
  std::string launch;
  for (const Task& t : tasks)
    launch += "TF_CONFIG='" + tf_config(t.type, t.index) + "' ip netns exec so-n" +
              std::to_string(t.node) + " " + binary() + " run " + plan.string() +
              " --launch external --store " + (dir_ / "store").string() + " --timeout 20 -o " +
              (dir_ / "result.json").string() + " > " + (dir_ / t.type).string() +
              std::to_string(t.index) + ".log 2>&1 & ";
  Output o = shell(launch + "wait");
  ASSERT_TRUE(fs::exists(dir_ / "result.json")) << shell("cat " + (dir_ / "*.log").string()).text;
  auto r = nlohmann::json::parse(std::ifstream(dir_ / "result.json"));
  EXPECT_EQ(r["wrong"], 0);
  EXPECT_EQ(r["workers"], 3);
  EXPECT_EQ(r["servers"], 1);
  EXPECT_EQ(r["gradients"]["applied"], 3 * 3);
  // 4 MB each way per step through 200 Mb/s links: a run on loopback would take a few ms.
  EXPECT_GT(r["step_time_s"].get<double>(), 0.1);
}

}  // namespace
