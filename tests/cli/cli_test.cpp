// Drives the `scaleout` binary as a user would: exit codes, messages, files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/support/test_plans.hpp"

namespace {

namespace fs = std::filesystem;
using scaleout::testing::source_path;

struct Output {
  int code = -1;
  std::string text;  // stdout and stderr together
};

Output run(const std::string& args) {
  std::string cmd = std::string(SCALEOUT_BINARY) + " " + args + " 2>&1";
  Output out;
  FILE* pipe = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.text.append(buf.data(), n);
  int status = pclose(pipe);
  out.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

const std::string kQuickstart = source_path("experiments/quickstart.yaml");

TEST(Cli, SimulateWritesEveryDocumentedKey) {
  fs::path out = fs::temp_directory_path() / "scaleout-cli-result.json";
  fs::path trace = fs::temp_directory_path() / "scaleout-cli-trace.json";
  Output o = run("simulate " + kQuickstart + " --workers 16 -o " + out.string() + " --trace " + trace.string());
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(out));
  for (const char* key : {"engine", "strategy", "workers", "bytes", "step_time_s", "throughput_samples_per_s",
                          "scaling_efficiency", "phases", "algbw_Bps", "busbw_Bps", "staleness", "steps", "links"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"compute_s", "comm_s", "exposed_comm_s"}) EXPECT_TRUE(j["phases"].contains(key)) << key;
  for (const char* key : {"mean", "p50", "p99", "max", "histogram"}) EXPECT_TRUE(j["staleness"].contains(key)) << key;
  EXPECT_EQ(j["workers"], 16);
  EXPECT_EQ(j["engine"], "sim");
  EXPECT_EQ(j["steps"].size(), 2u);
  EXPECT_GT(j["links"].size(), 0u);
  auto t = nlohmann::json::parse(std::ifstream(trace));
  std::size_t tracks = 0, spans = 0;
  for (const auto& e : t["traceEvents"]) {
    tracks += e["name"] == "thread_name";
    spans += e["ph"] == "X";
  }
  EXPECT_GT(tracks, 16u);       // every worker and the busy links
  EXPECT_GE(spans, 16u * 2 * 3);  // forward, backward, an exchange per worker and step
  fs::remove(out);
  fs::remove(trace);
}

TEST(Cli, JsonOnStdoutAndAnalyticEngine) {
  Output o = run("simulate " + kQuickstart + " --engine analytic --strategy torus2d --json");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text);
  EXPECT_EQ(j["engine"], "analytic");
  EXPECT_EQ(j["strategy"], "torus2d");
}

TEST(Cli, BadInputExitsTwoNamingFileAndLine) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-bad";
  fs::create_directories(dir);
  std::ofstream(dir / "plan.yaml") << "cluster: " << source_path("topologies/v100-ib-switch.yaml") << "\n"
                                   << "workload: " << source_path("models/resnet50.yaml") << "\n"
                                   << "strategy: { kind: ring, chunck: 4MiB }\n"
                                   << "training: { workers: 8 }\n";
  Output o = run("simulate " + (dir / "plan.yaml").string());
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find((dir / "plan.yaml").string() + ":3:"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("chunck"), std::string::npos) << o.text;

  EXPECT_EQ(run("simulate /nonexistent/plan.yaml").code, 2);
  EXPECT_EQ(run("simulate " + kQuickstart + " --strategy gossip").code, 2);
  EXPECT_EQ(run("sweep " + kQuickstart + " --workers 8:x2 -o /tmp/x.csv").code, 2);
  EXPECT_EQ(run("simulate " + kQuickstart + " --no-such-flag").code, 2);
  fs::remove_all(dir);
}

TEST(Cli, SweepPrintsATableAndWritesTheCsv) {
  fs::path csv = fs::temp_directory_path() / "scaleout-cli-sweep.csv";
  Output o = run("sweep " + kQuickstart + " --workers 8:32:x2 --strategies ring,torus2d,ps -o " + csv.string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("torus2d"), std::string::npos);
  std::ifstream in(csv);
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  EXPECT_EQ(lines, 1 + 9);
  fs::remove(csv);
}

TEST(Cli, HelpShowsAnExample) {
  for (const char* cmd : {"simulate --help", "sweep --help"}) {
    Output o = run(cmd);
    EXPECT_EQ(o.code, 0);
    EXPECT_NE(o.text.find("Example:"), std::string::npos) << cmd;
  }
}

}  // namespace
