// Delay-compensated asynchronous PS through the `scaleout` binary, as a user runs it: executed on
// loopback with the servers' parameters checked, the cost reported, and a run whose servers skip
// the compensation failing.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout {
namespace {

using testing::shell;

std::string bin() { return SCALEOUT_BINARY; }
std::string plan() {
  return testing::source_path("experiments/delay-compensation/loopback-async-dc.yaml");
}

TEST(DelayCompensationCli, RunChecksTheServersAndReportsTheCost) {
  std::string out = ::testing::TempDir() + "dc-result.json";
  auto o = shell(bin() + " run " + plan() + " --no-baselines --json -o " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(j["wrong"], 0);
  // 1M parameters on one server: 1M / 1.25G elements/s a push; 3 workers' copies of 4 MB.
  EXPECT_DOUBLE_EQ(j["delay_compensation"]["server_update_s_per_push"].get<double>(), 1e6 / 1.25e9);
  EXPECT_DOUBLE_EQ(j["delay_compensation"]["server_pulled_copies_bytes"].get<double>(), 12e6);
  EXPECT_DOUBLE_EQ(j["delay_compensation"]["lambda"].get<double>(), 0.04);
}

TEST(DelayCompensationCli, TheReportSaysWhatTheServersPay) {
  auto o = shell(bin() + " simulate " + plan());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("delay compensation  lambda 0.04: 0.80 ms a push"), std::string::npos)
      << o.text;
}

TEST(DelayCompensationCli, ServersWithoutTheCompensationFailTheRun) {
  auto o =
      shell("SCALEOUT_DROP_DELAY_COMPENSATION=1 " + bin() + " run " + plan() + " --no-baselines");
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_NE(o.text.find("replayed from each server's compensated updates"), std::string::npos)
      << o.text;
}

}  // namespace
}  // namespace scaleout
