// `scaleout validate` on the emulated cluster: predicted step time within 10% of measured for
// ring, torus2d, PS and asynchronous PS at 4 ranks, ring and torus2d at 8. Needs root (CI is
// root); elsewhere it skips and says why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace {

using scaleout::testing::source_path;

using scaleout::testing::Output;

Output scaleout(const std::string& args) { return scaleout::testing::shell(std::string(SCALEOUT_BINARY) + " " + args); }

class Validate : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "skipped: the emulated cluster needs root (network namespaces, tc)";
  }
  void TearDown() override { scaleout("cluster down"); }

  void expect_within_tolerance(const std::string& plan, const std::string& extra) {
    Output o = scaleout("validate " + source_path(plan) + " --cluster emulated --tolerance 0.10 " + extra);
    EXPECT_EQ(o.code, 0) << extra << "\n" << o.text;
    EXPECT_NE(o.text.find("tolerance 10.0%"), std::string::npos) << o.text;
  }
};

TEST_F(Validate, FourRanksOnOneSwitch) {
  ASSERT_EQ(scaleout("cluster up " + source_path("topologies/emulated-4x200mbit.yaml")).code, 0);
  expect_within_tolerance("experiments/emulated/ring-4.yaml", "--strategy ring");
  expect_within_tolerance("experiments/emulated/ring-4.yaml", "--strategy torus2d");
  expect_within_tolerance("experiments/emulated/ring-4.yaml", "--strategy ps --workers 3");  // + 1 server
  expect_within_tolerance("experiments/emulated/async-ps-4.yaml", "");
}

TEST_F(Validate, EightRanksInTwoRacks) {
  ASSERT_EQ(scaleout("cluster up " + source_path("topologies/emulated-2racks-200mbit.yaml")).code, 0);
  expect_within_tolerance("experiments/emulated/ring-8-two-racks.yaml", "--strategy ring");
  expect_within_tolerance("experiments/emulated/ring-8-two-racks.yaml", "--strategy torus2d");
}

TEST_F(Validate, CalibrateMeasuresTheEmulatedLinks) {
  ASSERT_EQ(scaleout("cluster up " + source_path("topologies/emulated-4x200mbit.yaml")).code, 0);
  Output o = scaleout("calibrate " + source_path("topologies/emulated-4x200mbit.yaml") +
                      " --cluster emulated -o /tmp/scaleout-calibrated-test.yaml");
  ASSERT_EQ(o.code, 0) << o.text;
  // "inter-node  <latency> us  <bandwidth> MB/s": TCP through tbf carries ~95.6% of 25 MB/s.
  double latency = 0, mbps = 0;
  ASSERT_EQ(std::sscanf(o.text.c_str(), "inter-node %lf us %lf MB/s", &latency, &mbps), 2) << o.text;
  EXPECT_GT(mbps, 0.9 * 25);
  EXPECT_LT(mbps, 25.0);
}

TEST_F(Validate, ExitsOneWhenTheErrorPassesTheTolerance) {
  ASSERT_EQ(scaleout("cluster up " + source_path("topologies/emulated-4x200mbit.yaml")).code, 0);
  Output o = scaleout("validate " + source_path("experiments/emulated/ring-4.yaml") +
                      " --cluster emulated --tolerance 0.0001 --strategy ring");
  EXPECT_EQ(o.code, 1) << o.text;
}

}  // namespace
