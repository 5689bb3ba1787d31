// Drives the `scaleout` binary as a user would: exit codes, messages, files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/plan/plan_loader.hpp"
#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace {

namespace fs = std::filesystem;
using scaleout::testing::source_path;

using scaleout::testing::Output;
using scaleout::testing::shell;

Output run(const std::string& args) { return shell(std::string(SCALEOUT_BINARY) + " " + args); }

const std::string kQuickstart = source_path("experiments/quickstart.yaml");

// Progress on stderr: asked for, a summary with the count; by default, off a terminal, nothing.
TEST(Cli, SimulateReportsTheMessagesItSentWhenAsked) {
  fs::path out = fs::temp_directory_path() / "scaleout-cli-progress.json";
  Output o = run("simulate " + kQuickstart + " --workers 64 --progress always -o " + out.string());
  ASSERT_EQ(o.code, 0) << o.text;
  // 64 ranks x 2 steps x 6 buckets a step (the result's `buckets`), one message each for a
  // fast ring.
  EXPECT_NE(o.text.find("simulated 768 messages (estimated about 768) in "), std::string::npos)
      << o.text;
  o = run("simulate " + kQuickstart + " --workers 64 -o " + out.string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(o.text.find("messages"), std::string::npos) << o.text;
  EXPECT_NE(run("simulate " + kQuickstart + " --progress sometimes").code, 0);
}

TEST(Cli, SimulateWritesEveryDocumentedKey) {
  fs::path out = fs::temp_directory_path() / "scaleout-cli-result.json";
  fs::path trace = fs::temp_directory_path() / "scaleout-cli-trace.json";
  Output o = run("simulate " + kQuickstart + " --workers 16 -o " + out.string() + " --trace " +
                 trace.string());
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(out));
  for (const char* key :
       {"engine", "strategy", "workers", "bytes", "step_time_s", "throughput_samples_per_s",
        "scaling_efficiency", "phases", "algbw_Bps", "busbw_Bps", "staleness", "steps", "links"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"compute_s", "comm_s", "exposed_comm_s"})
    EXPECT_TRUE(j["phases"].contains(key)) << key;
  for (const char* key : {"mean", "p50", "p99", "max", "histogram"})
    EXPECT_TRUE(j["staleness"].contains(key)) << key;
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
  EXPECT_GT(tracks, 16u);         // every worker and the busy links
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

// `--chakra DIR` writes one Chakra trace a rank and the communicator groups beside the result;
// a parameter server, which is no collective, is refused before anything is simulated or written.
TEST(Cli, SimulateWritesChakraTracesOrSaysWhyNot) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-cli-chakra-" + std::to_string(getpid()));
  fs::remove_all(dir);
  Output o =
      run("simulate " + kQuickstart + " --workers 16 --engine analytic --chakra " + dir.string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("wrote 16 Chakra traces"), std::string::npos) << o.text;
  for (int r = 0; r < 16; ++r)
    EXPECT_GT(fs::file_size(dir / ("scaleout." + std::to_string(r) + ".et")), 0u) << r;
  EXPECT_FALSE(fs::exists(dir / "scaleout.16.et"));
  auto groups = nlohmann::json::parse(std::ifstream(dir / "comm_group.json"));
  ASSERT_EQ(groups.size(), 1u);  // everyone's all-reduce
  EXPECT_EQ(groups["1"].size(), 16u);
  fs::remove_all(dir);
  o = run("simulate " + kQuickstart + " --strategy ps --chakra " + dir.string());
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.text.find("--chakra"), std::string::npos) << o.text;
  EXPECT_FALSE(fs::exists(dir));
}

// The analytic engine outside its tested range says so: a warning line and the JSON field.
// The tree's closed form warns on a partial last node only (60 workers on nodes of 8).
TEST(Cli, AnalyticWarningsArePrintedAndInTheJson) {
  Output o =
      run("simulate " + kQuickstart + " --engine analytic --strategy tree --workers 60 --json");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("warning: the tree's closed form"), std::string::npos) << o.text;
  std::string json = o.text.substr(o.text.find('{'));
  auto j = nlohmann::json::parse(json.substr(0, json.rfind('}') + 1));
  ASSERT_EQ(j["warnings"].size(), 1u);
  Output ring = run("simulate " + kQuickstart + " --engine analytic");
  EXPECT_EQ(ring.text.find("warning"), std::string::npos) << ring.text;
}

// What changes the answer shows in the text too: goodput under failures, staleness of async PS.
TEST(Cli, TextShowsGoodputUnderFailuresAndStaleness) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-text";
  fs::create_directories(dir);
  std::ifstream in(kQuickstart);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  text.replace(text.find("../topologies"), 13, source_path("topologies"));
  text.replace(text.find("../models"), 9, source_path("models"));
  std::ofstream(dir / "failing.yaml") << text << "failures:\n  - { node: 1, step: 1 }\n"
                                      << "checkpoint: { every: 1, cost: 2s, restart: 30s }\n";
  Output o = run("simulate " + (dir / "failing.yaml").string() + " --engine analytic");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("goodput"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("restart_from_checkpoint"), std::string::npos) << o.text;
  Output a = run("simulate " + source_path("experiments/emulated/async-ps-4.yaml"));
  ASSERT_EQ(a.code, 0) << a.text;
  EXPECT_NE(a.text.find("staleness"), std::string::npos) << a.text;
  fs::remove_all(dir);
}

TEST(Cli, BadInputExitsTwoNamingFileAndLine) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-bad";
  fs::create_directories(dir);
  std::ofstream(dir / "plan.yaml")
      << "cluster: " << source_path("topologies/v100-ib-switch.yaml") << "\n"
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
  Output o = run("sweep " + kQuickstart + " --workers 8:32:x2 --strategies ring,torus2d,ps -o " +
                 csv.string());
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
  EXPECT_NE(c.text.find("step time (mean)"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("GB/s"), std::string::npos) << c.text;
  Output cj = run("compare " + p + " " + m + " --json");
  ASSERT_EQ(cj.code, 0) << cj.text;
  auto j = nlohmann::json::parse(cj.text);
  // The error's sign: (predicted - measured) / measured, said under the table.
  double predicted = j["step_time_s"]["predicted"], measured_step = j["step_time_s"]["measured"];
  EXPECT_NEAR(j["step_time_s"]["relative_error"].get<double>(),
              (predicted - measured_step) / measured_step, 1e-12);
  EXPECT_NE(c.text.find("error = (predicted - measured) / measured: positive where the prediction "
                        "is higher"),
            std::string::npos)
      << c.text;
  EXPECT_EQ(run("compare " + p + " /nonexistent.json").code, 2);
  fs::remove_all(dir);
}

// Every result carries its plan's stamp; compare refuses two results of different plans, naming
// what differs, unless --force; a result without a stamp (older) is compared with a warning.
TEST(Cli, CompareRefusesResultsOfDifferentPlans) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-cli-stamp-" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto predict = [&](const std::string& plan, const std::string& flags, const std::string& name) {
    std::string out = (dir / name).string();
    Output o = run("simulate " + plan + " --engine analytic " + flags + " -o " + out);
    EXPECT_EQ(o.code, 0) << o.text;
    return out;
  };
  std::string ring2 = predict(kQuickstart, "--workers 2", "ring2.json");
  std::string ring2_again = predict(kQuickstart, "--workers 2", "ring2-again.json");
  std::string torus4 = predict(kQuickstart, "--workers 4 --strategy torus2d", "torus4.json");
  std::ofstream(dir / "fp16.yaml")
      << "cluster: " << source_path("topologies/v100-ib-switch.yaml")
      << "\nworkload: " << source_path("models/resnet50.yaml") << "\nstrategy: { kind: ring }\n"
      << "training: { workers: 2, gradient_precision: fp16 }\n";
  std::string fp16 = predict((dir / "fp16.yaml").string(), "", "fp16.json");
  EXPECT_EQ(run("compare " + ring2 + " " + ring2_again).code, 0);
  Output o = run("compare " + torus4 + " " + ring2);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("strategy torus2d vs ring, workers 4 vs 2"), std::string::npos) << o.text;
  o = run("compare " + ring2 + " " + fp16);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("the plans differ inside"), std::string::npos) << o.text;
  o = run("compare " + torus4 + " " + ring2 + " --force");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("warning: comparing results of different plans"), std::string::npos);
  auto old = nlohmann::json::parse(std::ifstream(torus4));
  old.erase("plan_stamp");
  std::ofstream(dir / "old.json") << old.dump();
  o = run("compare " + (dir / "old.json").string() + " " + ring2);
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("has no plan stamp"), std::string::npos) << o.text;
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
  Output o = shell("SCALEOUT_KILL_RANK=2:1 " + std::string(SCALEOUT_BINARY) + " run " +
                   plan.string() + " --timeout 3 --no-baselines");
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_NE(o.text.find("rank 2"), std::string::npos) << o.text;
  Output left =
      shell("pgrep -f 'kill-plan-[u]nique' || true");  // the bracket keeps pgrep's own shell out
  EXPECT_EQ(left.text.find_first_of("0123456789"), std::string::npos)
      << "processes left: " << left.text;
  fs::remove_all(dir);
}

TEST(Cli, ExternallyLaunchedRanksMeetThroughASharedStore) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-external";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path plan = dir / "plan.yaml";
  std::ofstream(plan) << "cluster: " << source_path("topologies/v100-ib-switch.yaml") << "\n"
                      << "workload: { name: tiny, parameters: 100K, flops_per_sample: 1MFLOP }\n"
                      << "strategy: { kind: ring, ps: { servers: 1 } }\n"
                      << "training: { workers: 3, steps: 2 }\n";
  std::string bin = std::string(SCALEOUT_BINARY) + " run " + plan.string() +
                    " --no-baselines --timeout 10 --launch external";
  // As mpirun would start them: one process per rank, rank and size in the environment.
  std::string mpi;
  for (int r = 0; r < 3; ++r)
    mpi += "OMPI_COMM_WORLD_RANK=" + std::to_string(r) + " OMPI_COMM_WORLD_SIZE=3 " + bin +
           " --store " + (dir / "mpi").string() + " -o " + (dir / "mpi.json").string() + " > " +
           (dir / ("mpi" + std::to_string(r))).string() + " 2>&1 & ";
  Output o = shell(mpi + "wait");
  ASSERT_TRUE(fs::exists(dir / "mpi.json")) << shell("cat " + (dir / "mpi0").string()).text;
  auto j = nlohmann::json::parse(std::ifstream(dir / "mpi.json"));
  EXPECT_EQ(j["wrong"], 0);
  EXPECT_EQ(j["workers"], 3);

  // As TensorFlow's cluster spec describes them: a chief, a worker and a parameter server.
  std::string tf;
  const char* tasks[] = {"chief", "worker", "ps"};
  for (const char* type : tasks)
    tf += std::string(
              "TF_CONFIG='{\"cluster\": {\"chief\": [\"127.0.0.1:1\"], \"worker\": "
              "[\"127.0.0.1:2\"], ") +
          "\"ps\": [\"127.0.0.1:3\"]}, \"task\": {\"type\": \"" + type + "\", \"index\": 0}}' " +
          bin + " --workers 2 --strategy ps --store " + (dir / "tf").string() + " -o " +
          (dir / "tf.json").string() + " > /dev/null 2>&1 & ";
  shell(tf + "wait");
  ASSERT_TRUE(fs::exists(dir / "tf.json"));
  auto t = nlohmann::json::parse(std::ifstream(dir / "tf.json"));
  EXPECT_EQ(t["wrong"], 0);
  EXPECT_EQ(t["servers"], 1);

  EXPECT_EQ(run("run " + plan.string() + " --launch external --store " + dir.string()).code, 2)
      << "no rank given";
  fs::remove_all(dir);
}

// Launched as mpirun would, one rank stops (SIGSTOP: alive, sending nothing): the ranks that time
// out wait for each other's errors in the shared store and name it, not only the peer each one
// waited on.
TEST(Cli, AStoppedRankOfAnExternalLaunchIsNamed) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-external-stop";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path plan = dir / "plan.yaml";
  std::ofstream(plan) << "cluster: " << source_path("topologies/v100-ib-switch.yaml") << "\n"
                      << "workload: { name: tiny, parameters: 100K, flops_per_sample: 1MFLOP }\n"
                      << "strategy: { kind: ring }\n"
                      << "training: { workers: 4, steps: 3 }\n";
  std::string script;
  for (int r = 0; r < 4; ++r)
    script += "OMPI_COMM_WORLD_RANK=" + std::to_string(r) +
              " OMPI_COMM_WORLD_SIZE=4 SCALEOUT_STOP_RANK=2:1 " + SCALEOUT_BINARY + " run " +
              plan.string() + " --no-baselines --timeout 2 --launch external --store " +
              (dir / "store").string() + " > " + (dir / ("rank" + std::to_string(r))).string() +
              " 2>&1 & p" + std::to_string(r) + "=$!; ";
  // Rank 2 never ends by itself: wait for the others, then kill it.
  shell(script + "wait $p0 $p1 $p3; kill -9 $p2; wait $p2");
  for (int r : {0, 1, 3}) {
    std::string log = shell("cat " + (dir / ("rank" + std::to_string(r))).string()).text;
    EXPECT_NE(log.find("rank 2 sent nothing for 2 s"), std::string::npos)
        << "rank " << r << ": " << log;
  }
  fs::remove_all(dir);
}

TEST(Cli, ACorruptedElementIsCountedAndFailsTheRun) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-corrupt";
  fs::create_directories(dir);
  fs::path out = dir / "measured.json";
  std::string args = " run " + kQuickstart + " --workers 2 --no-baselines -o " + out.string();
  Output clean = shell(std::string(SCALEOUT_BINARY) + args);
  ASSERT_EQ(clean.code, 0) << clean.text;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(out))["wrong"], 0);
  Output o = shell("SCALEOUT_CORRUPT_RANK=1:1 " + std::string(SCALEOUT_BINARY) + args);
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_NE(o.text.find("1 elements differ from the exact sum"), std::string::npos) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(j["wrong"], 1);
  fs::remove_all(dir);
}

TEST(Cli, ARunWithScaledComputeSaysSo) {
  Output o = run("run " + kQuickstart + " --workers 2 --no-baselines --json");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text.substr(o.text.find('{')));
  ASSERT_EQ(j["warnings"].size(), 1u) << j["warnings"];
  EXPECT_NE(j["warnings"][0].get<std::string>().find("0.0001 of the plan's FLOPs"),
            std::string::npos);
}

TEST(Cli, OneClusterUpOrDownAtATime) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-cluster-lock";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string state = (dir / "state.json").string();
  // Another process holds the lock beside the state file for a few seconds.
  std::string holder = "flock " + state + ".lock -c 'touch " + (dir / "held").string() +
                       "; sleep 5' >/dev/null 2>&1 &";
  ASSERT_EQ(shell(holder).code, 0);
  for (int i = 0; i < 100 && !fs::exists(dir / "held"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(dir / "held"));
  for (std::string verb :
       {std::string("down"), "up " + source_path("topologies/emulated-4x200mbit.yaml")}) {
    Output o = shell("SCALEOUT_CLUSTER_STATE=" + state + " " + std::string(SCALEOUT_BINARY) +
                     " cluster " + verb);
    EXPECT_EQ(o.code, 1) << verb << ": " << o.text;
    EXPECT_NE(o.text.find("another `scaleout cluster up` or `down` is running"), std::string::npos)
        << o.text;
  }
  EXPECT_FALSE(fs::exists(state)) << "nothing recorded while refused";
  fs::remove_all(dir);
}

TEST(Cli, CalibrateWritesATopologyThatLoads) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-calibrate";
  fs::create_directories(dir);
  fs::path out = dir / "calibrated.yaml";
  Output o =
      run("calibrate " + source_path("topologies/emulated-4x200mbit.yaml") + " -o " + out.string());
  ASSERT_EQ(o.code, 0) << o.text;
  // Loopback each way at once: hundreds of MB/s at least (after Gloo's own barrier a one-way
  // stream crawled at 1.8 MB/s: the measurement lines its ranks up otherwise).
  double mbps = 0;
  ASSERT_EQ(std::sscanf(o.text.substr(o.text.find("intra-node")).c_str(),
                        "intra-node %*f us %lf MB/s each way, 1 flow each way at once", &mbps),
            1)
      << o.text;
  EXPECT_GT(mbps, 50) << o.text;
  std::ofstream(dir / "plan.yaml")
      << "cluster: calibrated.yaml\n"
      << "workload: { name: g, parameters: 1M, flops_per_sample: 1GFLOP }\n"
      << "strategy: { kind: ring }\ntraining: { workers: 4 }\n";
  Output sim = run("simulate " + (dir / "plan.yaml").string() + " --engine analytic --json");
  ASSERT_EQ(sim.code, 0) << sim.text;
  // The calibrated host costs apply to parameter servers: a ring says so on stderr (merged here).
  auto j = nlohmann::json::parse(sim.text.substr(sim.text.find('{')));
  EXPECT_EQ(j["cluster"], "emulated-4x200mbit-calibrated");
  EXPECT_GT(j["step_time_s"].get<double>(), 0);
  // The compressors' and the compensation's rates measured on this core replace the defaults.
  scaleout::core::Cluster measured = scaleout::core::load_cluster(out.string());
  scaleout::core::Cluster claimed;
  // Each rate lands under its own name: the file's top-k rate is the one printed as top-k (to the
  // printed 0.001 G/s), and so on. Swapped, two rates would be off by their difference: on a CPU
  // core several times the precision (top-k 0.154 G/s, quantize 0.055 where this was written).
  auto at = o.text.find("compressors top-k ");
  ASSERT_NE(at, std::string::npos) << o.text;
  double topk = 0, quantize = 0, lowrank = 0, compensate = 0;
  ASSERT_EQ(std::sscanf(o.text.substr(at).c_str(),
                        "compressors top-k %lf, quantize %lf, PowerSGD step %lf, delay "
                        "compensation %lf G elements/s",
                        &topk, &quantize, &lowrank, &compensate),
            4)
      << o.text;
  for (auto [got, printed, default_rate] :
       {std::tuple{measured.device.compress_topk, topk, claimed.device.compress_topk},
        std::tuple{measured.device.compress_quantize, quantize, claimed.device.compress_quantize},
        std::tuple{measured.device.compress_lowrank, lowrank, claimed.device.compress_lowrank},
        std::tuple{measured.host.compensate_rate, compensate, claimed.host.compensate_rate}}) {
    EXPECT_GT(got, 1e6);
    EXPECT_NE(got, default_rate);
    EXPECT_NEAR(got / 1e9, printed, 0.0006) << o.text;  // printed to 0.001, written to 6 digits
  }
  EXPECT_EQ(run("calibrate /nonexistent.yaml -o " + out.string()).code, 2);
  fs::remove_all(dir);
}

TEST(Cli, VersionPrintsTheVersion) {
  Output o = run("--version");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("scaleout 0."), std::string::npos) << o.text;
}

// A plan of the bundled topology and model with `strategy` on line 3 and `training` on line 4.
std::string write_plan(const fs::path& dir, const std::string& strategy,
                       const std::string& training) {
  fs::create_directories(dir);
  std::ofstream(dir / "plan.yaml")
      << "cluster: " << source_path("topologies/v100-ib-switch.yaml") << "\n"
      << "workload: " << source_path("models/resnet50.yaml") << "\n"
      << "strategy: " << strategy << "\n"
      << "training: " << training << "\n";
  return (dir / "plan.yaml").string();
}

TEST(Cli, OutOfRangeNumbersAndEmptyPathsExitTwo) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-range";
  std::string plan = write_plan(dir, "{ kind: ring }", "{ workers: 4294967297 }");
  Output o = run("simulate " + plan + " --engine analytic");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find(plan + ":4:"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("training.workers"), std::string::npos) << o.text;

  Output zero = run("simulate " + kQuickstart + " --workers 0");
  EXPECT_EQ(zero.code, 2) << zero.text;
  EXPECT_NE(zero.text.find("2147483647"), std::string::npos) << zero.text;
  EXPECT_EQ(zero.text.find("1797693134862315"), std::string::npos)
      << "DBL_MAX printed: " << zero.text;
  EXPECT_EQ(run("simulate " + kQuickstart + " --workers 4294967297").code, 2);
  EXPECT_EQ(run("run " + kQuickstart + " --timeout 0").code, 2);
  EXPECT_EQ(run("run " + kQuickstart + " --compute-scale nan").code, 2);
  EXPECT_EQ(run("validate " + kQuickstart + " --tolerance nan").code, 2);

  for (const std::string& cmd :
       {"simulate " + kQuickstart + " --engine analytic -o ''",
        "simulate " + kQuickstart + " --trace ''",
        "sweep " + kQuickstart + " --engine analytic -o ''", "run " + kQuickstart + " -o ''",
        "validate " + kQuickstart + " -o ''",
        "calibrate " + source_path("topologies/v100-ib-switch.yaml") + " -o ''"}) {
    Output e = run(cmd);
    EXPECT_EQ(e.code, 2) << cmd << "\n" << e.text;
    EXPECT_NE(e.text.find("empty file name"), std::string::npos) << cmd << "\n" << e.text;
  }
  fs::remove_all(dir);
}

TEST(Cli, ComplexKeyExitsTwoNamingTheFile) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-complex";
  std::string plan = write_plan(dir, "{ kind: ring }", "{ workers: 8 }");
  std::ofstream(plan, std::ios::app) << "? [a, b]\n: 1\n";
  Output o = run("simulate " + plan + " --engine analytic");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find(plan + ":5:"), std::string::npos) << o.text;
  fs::remove_all(dir);
}

TEST(Cli, SweepRunsARepeatedPointOnce) {
  fs::path csv = fs::temp_directory_path() / "scaleout-cli-dedupe.csv";
  Output o =
      run("sweep " + kQuickstart +
          " --engine analytic --workers 16,8,16 --strategies ring,ring -q -o " + csv.string());
  ASSERT_EQ(o.code, 0) << o.text;
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u + 2u);
  EXPECT_NE(lines[1].find(",ring,16,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find(",ring,8,"), std::string::npos) << lines[2];
  fs::remove(csv);
}

TEST(Cli, SweepVariesPlanFieldsAndRefusesOnesThatDoNotExist) {
  fs::path csv = fs::temp_directory_path() / "scaleout-cli-vary.csv";
  Output o = run("sweep " + kQuickstart +
                 " --engine analytic --workers 8,64 --vary nic.bandwidth=10Gbps,100Gbps"
                 " --vary training.fusion_buffer=4MiB -o " +
                 csv.string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(o.text.rfind("cluster.nic.bandwidth training.fusion_buffer strategy", 0), 0u) << o.text;
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u + 4u);
  EXPECT_NE(lines[0].find(",cluster.nic.bandwidth,training.fusion_buffer"), std::string::npos);
  EXPECT_NE(lines[1].find(",10Gbps,4MiB"), std::string::npos) << lines[1];
  EXPECT_NE(lines[4].find(",100Gbps,4MiB"), std::string::npos) << lines[4];
  Output bad = run("sweep " + kQuickstart + " --vary parallelism.tensr=1,2 -o " + csv.string());
  EXPECT_EQ(bad.code, 2) << bad.text;
  EXPECT_NE(bad.text.find("no field 'parallelism.tensr'"), std::string::npos) << bad.text;
  Output slurm = run("sweep " + kQuickstart + " --vary nic.bandwidth=10Gbps -o " + csv.string() +
                     " --emit-slurm 2");
  EXPECT_NE(slurm.text.find(" --vary 'nic.bandwidth=10Gbps'"), std::string::npos) << slurm.text;
  fs::remove(csv);
}

TEST(Cli, FlatKnobsOfAnotherKindLoadDeprecatedOnlyWhenThatKindRuns) {
  fs::path dir = fs::temp_directory_path() / "scaleout-cli-deprecated";
  std::string plan = write_plan(dir, "{ kind: ring, servers: 2 }", "{ workers: 8 }");
  Output refused = run("simulate " + plan + " --engine analytic");
  EXPECT_EQ(refused.code, 2) << refused.text;
  EXPECT_NE(refused.text.find(plan + ":3:"), std::string::npos) << refused.text;
  EXPECT_NE(refused.text.find("ps: { servers: ... }"), std::string::npos) << refused.text;

  Output swept = run("sweep " + plan + " --engine analytic --strategies ring,ps -q -o " +
                     (dir / "s.csv").string());
  EXPECT_EQ(swept.code, 0) << swept.text;
  EXPECT_NE(swept.text.find("warning: " + plan + ":3:"), std::string::npos) << swept.text;
  EXPECT_NE(swept.text.find("deprecated"), std::string::npos) << swept.text;
  Output as_ps = run("simulate " + plan + " --engine analytic --strategy ps --json");
  EXPECT_EQ(as_ps.code, 0) << as_ps.text;
  EXPECT_NE(as_ps.text.find("\"servers\": 2"), std::string::npos) << as_ps.text;
  fs::remove_all(dir);
}

TEST(Cli, ValidateHelpNamesFilesThatExist) {
  Output o = run("validate --help");
  ASSERT_EQ(o.code, 0) << o.text;
  int named = 0;
  for (std::size_t at = o.text.find("experiments/"); at != std::string::npos;
       at = o.text.find("experiments/", at + 1)) {
    std::string path = o.text.substr(at, o.text.find_first_of(" \n", at) - at);
    EXPECT_TRUE(fs::exists(source_path(path))) << path;
    ++named;
  }
  EXPECT_GT(named, 0);
}

TEST(Cli, HelpShowsAnExample) {
  for (const char* cmd : {"simulate --help", "sweep --help", "run --help", "compare --help",
                          "validate --help", "calibrate --help", "cluster --help", "plan --help"}) {
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
  for (const char* key : {"strategy", "workers", "devices", "step_time_s",
                          "throughput_samples_per_s", "scaling_efficiency", "bottleneck", "cost"})
    EXPECT_TRUE(j["best"].contains(key)) << key;
  EXPECT_GE(j["best"]["throughput_samples_per_s"].get<double>(), 50000);

  Output far = run("plan " + kQuickstart + " --target-throughput 1e9");
  EXPECT_EQ(far.code, 1) << far.text;
  EXPECT_NE(far.text.find("not reachable with at most 1024 workers"), std::string::npos)
      << far.text;
  EXPECT_NE(far.text.find("bottleneck: "), std::string::npos) << far.text;

  Output ttt = run("plan " + kQuickstart +
                   " --time-to-train 21600 --samples-per-epoch 1.28M --epochs 90 --price 2 --json");
  ASSERT_EQ(ttt.code, 0) << ttt.text;
  auto t = nlohmann::json::parse(ttt.text);
  EXPECT_LE(t["best"]["train_time_s"].get<double>(), 21600);
  EXPECT_GT(t["best"]["cost"].get<double>(), 0);
  Output hours = run("plan " + kQuickstart +
                     " --time-to-train 6h --samples-per-epoch 1.28M --epochs 90 --price 2 --json");
  ASSERT_EQ(hours.code, 0) << hours.text;
  EXPECT_EQ(nlohmann::json::parse(hours.text)["best"], t["best"]) << "6h is 21600 s";
  EXPECT_EQ(
      run("plan " + kQuickstart + " --time-to-train 6M --samples-per-epoch 1.28M --epochs 90").code,
      2)
      << "a time takes no count suffix";

  EXPECT_EQ(run("plan " + kQuickstart).code, 2);  // no target
  EXPECT_EQ(run("plan " + kQuickstart + " --target-throughput 1000 --time-to-train 60").code, 2);
  EXPECT_EQ(run("plan " + kQuickstart + " --time-to-train 60").code, 2);  // no samples
  EXPECT_EQ(run("plan " + kQuickstart + " --target-throughput 1000 --min-efficiency 3").code, 2);
  EXPECT_EQ(run("plan /nonexistent.yaml --target-throughput 1000").code, 2);
}

}  // namespace
