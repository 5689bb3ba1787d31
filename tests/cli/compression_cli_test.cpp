// Compressed plans through the `scaleout` binary, as a user runs them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout {
namespace {

namespace fs = std::filesystem;
using testing::shell;

std::string bin() { return SCALEOUT_BINARY; }

// Four CPU workers on loopback, a 100,000-parameter model, top-k 1% with error feedback.
class CompressionCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("scaleout-compression-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "plan.yaml")
        << "cluster:\n  name: loopback\n  devices_per_node: 4\n  device: { flops: 1TFLOPS }\n"
           "  intra_node: { bandwidth: 10GB/s, latency: 1us }\n"
           "  nic: { bandwidth: 10Gbps, latency: 5us }\n"
           "workload: { name: small, parameters: 100000, flops_per_sample: 1MFLOP }\n"
           "strategy: { kind: ring }\n"
           "training:\n  workers: 4\n  batch_per_worker: 1\n  steps: 3\n"
           "  compression: { kind: topk, density: 0.01 }\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string plan() const { return (dir_ / "plan.yaml").string(); }
  fs::path dir_;
};

TEST_F(CompressionCli, RunChecksEveryStepAndReportsTheWireBytes) {
  auto o = shell(bin() + " run " + plan() + " --no-baselines --json -o " +
                 (dir_ / "r.json").string() + " > /dev/null");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(dir_ / "r.json"));
  EXPECT_EQ(j["wrong"], 0);
  EXPECT_EQ(j["compression"]["kind"], "topk");
  // (n - 1) x k x 8 bytes: 3 x 1,000 x 8.
  EXPECT_DOUBLE_EQ(j["compression"]["wire_bytes_per_worker"].get<double>(), 24000);
}

// GRACE's random-k: shared indices, the values all-reduced: 2 (n - 1) / n x k x 4 bytes.
TEST_F(CompressionCli, SharedRandomKRunsAndSaysSo) {
  std::ifstream in(plan());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("{ kind: topk, density: 0.01 }"), 29,
               "{ kind: randomk, density: 0.01, shared_indices: true }");
  std::ofstream(plan()) << text;
  auto sim = shell(bin() + " simulate " + plan());
  ASSERT_EQ(sim.code, 0) << sim.text;
  EXPECT_NE(sim.text.find("randomk (shared indices), 0.01 MB on the wire"), std::string::npos)
      << sim.text;
  auto o = shell(bin() + " run " + plan() + " --no-baselines --json -o " +
                 (dir_ / "r.json").string() + " > /dev/null");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(dir_ / "r.json"));
  EXPECT_EQ(j["wrong"], 0);
  EXPECT_EQ(j["compression"]["shared_indices"], true);
  EXPECT_DOUBLE_EQ(j["compression"]["wire_bytes_per_worker"].get<double>(), 2 * 3 / 4.0 * 4000);
}

TEST_F(CompressionCli, ARunWithoutItsErrorFeedbackFails) {
  auto o = shell("SCALEOUT_DROP_ERROR_FEEDBACK=1 " + bin() + " run " + plan() + " --no-baselines");
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_NE(o.text.find("what every worker's compressor emitted"), std::string::npos) << o.text;
}

}  // namespace
}  // namespace scaleout
