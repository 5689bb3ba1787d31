// A host joined to one switch by two links: once a SimGrid abort ("declared several times") with
// a backtrace; now refused with its line without rails, and two striped rails with them.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/core/plan_text.hpp"
#include "tests/support/command.hpp"

namespace {

using scaleout::testing::Output;
using scaleout::testing::shell;
using scaleout::testing::TempDir;

Output run(const std::string& args) { return shell(std::string(SCALEOUT_BINARY) + " " + args); }

// Four hosts, each with two 100 Gb/s links to one switch (lines 8-15); `rails` on line 6.
std::string plan(const std::string& rails) {
  std::string p =
      "cluster:\n"
      "  name: two-links\n"
      "  device: { flops: 100TFLOPS }\n"
      "  intra_node: { bandwidth: 150GB/s, latency: 1us }\n"
      "  network: { kind: explicit }\n" +
      rails +
      "  hosts: [{ name: h0 }, { name: h1 }, { name: h2 }, { name: h3 }]\n"
      "  switches: [sw]\n"
      "  links:\n";
  for (int h = 0; h < 4; ++h)
    for (int k = 0; k < 2; ++k)
      p += "    - { a: h" + std::to_string(h) + ", b: sw, bandwidth: 100Gbps, latency: 2us }\n";
  return p +
         "  network_model: cm02\n"
         "workload: { name: m, parameters: 25M, flops_per_sample: 1GFLOP }\n"
         "strategy: { kind: ring }\n"
         "training: { workers: 4, batch_per_worker: 1, steps: 1 }\n";
}

TEST(NodeFabricCli, TwoLinksToOneSwitchWithoutRailsAreRefusedWithTheirLine) {
  TempDir dir("cli-two-links");
  std::string file = dir.write("plan.yaml", plan("  nics_per_node: 1\n"));
  Output o = run("simulate " + file);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find(file + ":11:"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("line 10"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("declared several times"), std::string::npos) << o.text;
}

TEST(NodeFabricCli, TwoLinksToOneSwitchAsRailsCarryHalfTheBytesEach) {
  TempDir dir("cli-two-rails");
  std::string file = dir.write("plan.yaml", plan("  nics_per_node: 2\n"));
  Output o = run("simulate " + file + " --json");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text);
  double first = 0, second = 0;
  for (const auto& l : j["links"]) {
    if (l["name"] == "h0-sw") first = l["bytes"];
    if (l["name"] == "h0-sw-2") second = l["bytes"];
  }
  // A ring of 4 over 100 MB: h0 sends 2 x 3/4 x 100 MB and receives as much, half on each rail.
  EXPECT_NEAR(first, 1.5e8, 1e3);
  EXPECT_NEAR(second, 1.5e8, 1e3);
  // Two rails of 12.5 GB/s: as fast as one of 25 GB/s, 6 steps of 25 MB and 6 us.
  double comm = j["phases"]["comm_s"];
  double closed = 6 * (6e-6 + 25e6 / 25e9);
  EXPECT_LT(std::fabs(comm - closed) / closed, 0.02) << comm << " vs " << closed;
}

}  // namespace
