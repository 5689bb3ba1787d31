// Drives the `scaleout` binary as a user would: exit codes, messages, files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace {

namespace fs = std::filesystem;
using scaleout::testing::source_path;

using scaleout::testing::Output;
using scaleout::testing::shell;

Output run(const std::string& args) { return shell(std::string(SCALEOUT_BINARY) + " " + args); }

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

TEST(Cli, RunThenCompareWithThePrediction) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-run";
  fs::create_directories(dir);
  std::string p = (dir / "predicted.json").string(), m = (dir / "measured.json").string();
  ASSERT_EQ(run("simulate " + kQuickstart + " --workers 2 -o " + p).code, 0);
  Output r = run("run " + kQuickstart + " --workers 2 --no-baselines --compute-scale 1e-5 -o " + m);
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("#wrong"), std::string::npos) << r.text;
  auto measured = nlohmann::json::parse(std::ifstream(m));
  EXPECT_EQ(measured["engine"], "cpu");
  EXPECT_EQ(measured["wrong"], 0);
  Output c = run("compare " + p + " " + m);
  ASSERT_EQ(c.code, 0) << c.text;
  EXPECT_NE(c.text.find("step time"), std::string::npos) << c.text;
  Output cj = run("compare " + p + " " + m + " --json");
  ASSERT_EQ(cj.code, 0) << cj.text;
  auto j = nlohmann::json::parse(cj.text);
  EXPECT_TRUE(j["step_time_s"].contains("relative_error"));
  EXPECT_EQ(run("compare " + p + " /nonexistent.json").code, 2);
  fs::remove_all(dir);
}

TEST(Cli, AKilledRankExitsOneNamingItAndLeavesNoProcess) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-kill";
  fs::create_directories(dir);
  fs::path plan = dir / "kill-plan-unique.yaml";
  std::ofstream(plan) << "cluster: " << source_path("topologies/v100-ib-switch.yaml") << "\n"
                      << "workload: { name: tiny, parameters: 200K, flops_per_sample: 1MFLOP }\n"
                      << "strategy: { kind: ring }\n"
                      << "training: { workers: 3, steps: 4 }\n";
  Output o = shell("SCALEOUT_KILL_RANK=2:1 " + std::string(SCALEOUT_BINARY) + " run " + plan.string() +
                   " --timeout 3 --no-baselines");
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_NE(o.text.find("rank 2"), std::string::npos) << o.text;
  Output left = shell("pgrep -f 'kill-plan-[u]nique' || true");  // the bracket keeps pgrep's own shell out
  EXPECT_EQ(left.text.find_first_of("0123456789"), std::string::npos) << "processes left: " << left.text;
  fs::remove_all(dir);
}

TEST(Cli, ExternallyLaunchedRanksMeetThroughASharedStore) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-external";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path plan = dir / "plan.yaml";
  std::ofstream(plan) << "cluster: " << source_path("topologies/v100-ib-switch.yaml") << "\n"
                      << "workload: { name: tiny, parameters: 100K, flops_per_sample: 1MFLOP }\n"
                      << "strategy: { kind: ring, servers: 1 }\n"
                      << "training: { workers: 3, steps: 2 }\n";
  std::string bin = std::string(SCALEOUT_BINARY) + " run " + plan.string() + " --no-baselines --timeout 10 --launch external";
  // As mpirun would start them: one process per rank, rank and size in the environment.
  std::string mpi;
  for (int r = 0; r < 3; ++r)
    mpi += "OMPI_COMM_WORLD_RANK=" + std::to_string(r) + " OMPI_COMM_WORLD_SIZE=3 " + bin + " --store " +
           (dir / "mpi").string() + " -o " + (dir / "mpi.json").string() + " > " + (dir / ("mpi" + std::to_string(r))).string() + " 2>&1 & ";
  Output o = shell(mpi + "wait");
  ASSERT_TRUE(fs::exists(dir / "mpi.json")) << shell("cat " + (dir / "mpi0").string()).text;
  auto j = nlohmann::json::parse(std::ifstream(dir / "mpi.json"));
  EXPECT_EQ(j["wrong"], 0);
  EXPECT_EQ(j["workers"], 3);

  // As TensorFlow's cluster spec describes them: a chief, a worker and a parameter server.
  std::string tf;
  const char* tasks[] = {"chief", "worker", "ps"};
  for (const char* type : tasks)
    tf += std::string("TF_CONFIG='{\"cluster\": {\"chief\": [\"127.0.0.1:1\"], \"worker\": [\"127.0.0.1:2\"], ") +
          "\"ps\": [\"127.0.0.1:3\"]}, \"task\": {\"type\": \"" + type + "\", \"index\": 0}}' " + bin +
          " --workers 2 --strategy ps --store " + (dir / "tf").string() + " -o " + (dir / "tf.json").string() + " > /dev/null 2>&1 & ";
  shell(tf + "wait");
  ASSERT_TRUE(fs::exists(dir / "tf.json"));
  auto t = nlohmann::json::parse(std::ifstream(dir / "tf.json"));
  EXPECT_EQ(t["wrong"], 0);
  EXPECT_EQ(t["servers"], 1);

  EXPECT_EQ(run("run " + plan.string() + " --launch external --store " + dir.string()).code, 2) << "no rank given";
  fs::remove_all(dir);
}

TEST(Cli, CalibrateWritesATopologyThatLoads) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-calibrate";
  fs::create_directories(dir);
  fs::path out = dir / "calibrated.yaml";
  Output o = run("calibrate " + source_path("topologies/emulated-4x200mbit.yaml") + " -o " + out.string());
  ASSERT_EQ(o.code, 0) << o.text;
  std::ofstream(dir / "plan.yaml") << "cluster: calibrated.yaml\n"
                                   << "workload: { name: g, parameters: 1M, flops_per_sample: 1GFLOP }\n"
                                   << "strategy: { kind: ring }\ntraining: { workers: 4 }\n";
  Output sim = run("simulate " + (dir / "plan.yaml").string() + " --engine analytic --json");
  ASSERT_EQ(sim.code, 0) << sim.text;
  auto j = nlohmann::json::parse(sim.text);
  EXPECT_EQ(j["cluster"], "emulated-4x200mbit-calibrated");
  EXPECT_GT(j["step_time_s"].get<double>(), 0);
  EXPECT_EQ(run("calibrate /nonexistent.yaml -o " + out.string()).code, 2);
  fs::remove_all(dir);
}

TEST(Cli, HelpShowsAnExample) {
  for (const char* cmd : {"simulate --help", "sweep --help", "run --help", "compare --help", "validate --help",
                          "calibrate --help", "cluster --help", "plan --help"}) {
    Output o = run(cmd);
    EXPECT_EQ(o.code, 0);
    EXPECT_NE(o.text.find("Example:"), std::string::npos) << cmd;
  }
}

TEST(Cli, PlanAnswersLikeTheLibraryAndExitsOneWhenUnreachable) {
  Output ok = run("plan " + kQuickstart + " --target-throughput 50000 --json");
  ASSERT_EQ(ok.code, 0) << ok.text;
  auto j = nlohmann::json::parse(ok.text);
  EXPECT_TRUE(j["reachable"].get<bool>());
  for (const char* key : {"strategy", "workers", "devices", "step_time_s", "throughput_samples_per_s",
                          "scaling_efficiency", "bottleneck", "cost"})
    EXPECT_TRUE(j["best"].contains(key)) << key;
  EXPECT_GE(j["best"]["throughput_samples_per_s"].get<double>(), 50000);

  Output far = run("plan " + kQuickstart + " --target-throughput 1e9");
  EXPECT_EQ(far.code, 1) << far.text;
  EXPECT_NE(far.text.find("not reachable below 2048 workers"), std::string::npos) << far.text;
  EXPECT_NE(far.text.find("bottleneck: "), std::string::npos) << far.text;

  Output ttt = run("plan " + kQuickstart +
                   " --time-to-train 21600 --samples-per-epoch 1.28M --epochs 90 --price 2 --json");
  ASSERT_EQ(ttt.code, 0) << ttt.text;
  auto t = nlohmann::json::parse(ttt.text);
  EXPECT_LE(t["best"]["train_time_s"].get<double>(), 21600);
  EXPECT_GT(t["best"]["cost"].get<double>(), 0);

  EXPECT_EQ(run("plan " + kQuickstart).code, 2);  // no target
  EXPECT_EQ(run("plan " + kQuickstart + " --target-throughput 1000 --time-to-train 60").code, 2);
  EXPECT_EQ(run("plan " + kQuickstart + " --time-to-train 60").code, 2);  // no samples
  EXPECT_EQ(run("plan " + kQuickstart + " --target-throughput 1000 --min-efficiency 3").code, 2);
  EXPECT_EQ(run("plan /nonexistent.yaml --target-throughput 1000").code, 2);
}

}  // namespace
