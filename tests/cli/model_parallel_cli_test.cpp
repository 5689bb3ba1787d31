// Model-parallel plans through the `scaleout` binary, as a user runs them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout {
namespace {

namespace fs = std::filesystem;
using testing::shell;
using testing::source_path;

std::string bin() { return SCALEOUT_BINARY; }
const std::string kGpt3 = source_path("experiments/model-parallel/gpt3-175b.yaml");

// GPT-3 175B (l 96, h 12,288, s 2,048, V 51,200) on A100s (312 TFLOP/s, 45% in the products):
// tensor 8, pipeline 16 (6 layers a stage), data 8, 1,536 sequences of micro-batch 1, so 192
// micro-batches a replica, 1F1B with full recomputation. By hand:
//  - a layer's forward of a sequence, 2 s 12h^2 + 4 s^2 h = 7.6279e12 FLOPs, on one of 8 devices at
//    0.45 x 312e12: fc = 6.79119 ms; full recomputation makes its backward 3 fc;
//  - a tensor all-reduce of s h x 2 bytes = 50,331,648 over 8 GPUs on NVSwitch: 14 ring steps of
//    1/8 of it at 240 GB/s and 2 us (1 us to the switch, 1 us from it): a = 395.0016 us, 2 a in a
//    layer's forward, 4 a in its backward; a stage's forward and backward: f + b = 6 (4 fc + 6 a);
//  - the output layer on the last stage: 2 s h V / 8 at 0.45 x 312e12 = L = 2.29432 ms forward, 2 L
//    backward; a stage transfer to the next node: 2 us + 50,331,648 B over 8 NICs of 25 GB/s:
//    T = 253.658 us;
//  - the last stage (the busiest) starts after p - 1 forwards and transfers, runs its 192
//    micro-batches back to back, and the last backward goes back through p - 1 stages:
//    (m + p - 1)(f + b) + 3 m L + 2 (p - 1) T = 38.011310 s;
//  - the data all-reduce of stage 0's gradient: 6 x (12h^2 + 13h) / 8 + V h / 8 + s h (positions
//    kept whole) = 1,462,883,328 parameters, 2 bytes each, over 8 replicas one a node (25 GB/s, the
//    node's 8 NICs shared by its 8 groups): 14 steps of 1/8 of it and 6 us (1 + 2 + 2 + 1):
//    0.204888 s. The step: 38.216198 s.
//  - MFU: 72 s l h^2 (1 + s/6h + V/12lh) = 2.2046e15 FLOPs a sequence x 1,536 / (38.216198 s x
//    1,024 x 312e12) = 0.27733850.
//  - Memory of stage 0: its parameters x (2 + 2 + 12 bytes: bf16 weights and gradients, Adam's fp32
//    states) = 23,406,133,248, and 16 micro-batches in flight x 6 layers x 2 s h bytes (the layer's
//    input, full recomputation) = 4,831,838,208: 28,237,971,456 bytes.
TEST(ModelParallelCli, AnalyticGpt3ReportsTheSplitTokensMfuAndMemory) {
  auto o = shell(bin() + " simulate " + kGpt3 + " --engine analytic --json 2>/dev/null");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text);
  EXPECT_EQ(j["parallelism"]["tensor"], 8);
  EXPECT_EQ(j["parallelism"]["pipeline"], 16);
  EXPECT_EQ(j["parallelism"]["data"], 8);
  EXPECT_EQ(j["parallelism"]["microbatches"], 1536 / 8);
  double step = j["step_time_s"];
  EXPECT_NEAR(step, 38.216198, 1e-6);
  EXPECT_NEAR(j["tokens_per_s"].get<double>(), 1536.0 * 2048 / step, 1e-6 * 1536 * 2048 / step);
  EXPECT_NEAR(j["mfu"].get<double>(), 0.27733850, 1e-8);
  for (const char* key : {"bubble_s", "tensor_comm_s", "pipeline_comm_s", "data_comm_s"})
    EXPECT_GT(j["phases"][key].get<double>(), 0) << key;
  // The traffic, worked out from the plan and topologies/dgx-a100-ib.yaml (NVSwitch links 240 GB/s
  // and 1 us; 8 NICs a node of 200 Gb/s = 25 GB/s and 2 us each; cm02: no corrections).
  // Stage transfers: a micro-batch's activations are b s h x 2 bytes (bf16) = 1 x 2048 x 12288 x 2
  // = 50,331,648 B. A stage holds tensor 8 x data 8 = 64 ranks, 8 whole nodes, so every boundary
  // leaves a node: a node's 8 ranks send their eighths at once over its 8 NICs (200 GB/s),
  // 2 us + 50,331,648 / 200e9 = 253.65824 us a hop. 192 micro-batches each way over 15
  // boundaries, averaged over 16 stages: 2 x 192 x 15 x 253.65824 us / 16 = 91.3169664 ms.
  EXPECT_NEAR(j["phases"]["pipeline_comm_s"].get<double>(), 91.3169664e-3, 1e-6 * 91.3169664e-3);
  // The data group's exchange: stage 0's parameters (the most: the word and position
  // embeddings), 96/16 layers x (12 h^2 + 13 h) / 8 + V h / 8 + s h = 1,359,074,304 + 78,643,200 +
  // 25,165,824 = 1,462,883,328, 2 bytes each (bf16) = 2,925,766,656 B, all-reduced in a ring of 8,
  // one rank a node; a node's 8 data groups (one per tensor rank) share its 200 GB/s, 25 GB/s each:
  // 2 x 7/8 x 2,925,766,656 / 25e9 = 204.80366592 ms, plus 14 steps of 6 us (NVSwitch link, NIC,
  // NIC, NVSwitch link) = 204.88766592 ms.
  EXPECT_DOUBLE_EQ(j["bytes"].get<double>(), 2925766656.0);
  EXPECT_NEAR(j["phases"]["data_comm_s"].get<double>(), 204.88766592e-3, 1e-6 * 204.88766592e-3);
  EXPECT_DOUBLE_EQ(j["memory_bytes"]["capacity"].get<double>(), 80e9);
  EXPECT_DOUBLE_EQ(j["memory_bytes"]["parameters"].get<double>(), 2 * 1462883328.0);
  EXPECT_DOUBLE_EQ(j["memory_bytes"]["activations"].get<double>(), 4831838208.0);
  EXPECT_DOUBLE_EQ(j["memory_bytes"]["total"].get<double>(), 28237971456.0);
}

// Llama 3 405B's split, 126 layers and the embedding and the loss over 16 stages x 8 chunks: the
// first and the last stage hold 7 layers, the 14 between 8; the report and its JSON say so.
TEST(ModelParallelCli, StagesOfUnequalLayersAreReported) {
  std::string plan = source_path("experiments/model-parallel/llama3-405b-h100.yaml");
  auto text = shell(bin() + " simulate " + plan + " --engine analytic 2>&1");
  ASSERT_EQ(text.code, 0) << text.text;
  EXPECT_NE(text.text.find("layers a stage 7, 14 x 8, 7"), std::string::npos) << text.text;
  auto o = shell(bin() + " simulate " + plan + " --engine analytic --json 2>/dev/null");
  ASSERT_EQ(o.code, 0) << o.text;
  auto layers = nlohmann::json::parse(o.text)["parallelism"]["stage_layers"];
  ASSERT_EQ(layers.size(), 16u);
  EXPECT_EQ(layers[0], 7);
  EXPECT_EQ(layers[1], 8);
  EXPECT_EQ(layers[15], 7);
  auto even = shell(bin() + " simulate " + kGpt3 + " --engine analytic 2>&1");
  EXPECT_EQ(even.text.find("layers a stage"), std::string::npos) << even.text;
}

// The summary counts sequences and tokens, names the model-parallel "scaling efficiency" for what
// it is, and gives both FLOP counts. Megatron-LM's over the model's, from Narayanan et al. 2021's
// formulas for GPT-3 (s 2048, h 12288, l 96, V 51200): 96 (1 + s/6h + V/16lh) over
// 72 (1 + s/6h + V/12lh) = 4/3 x 1.0304905 / 1.0313947 = 1.3321644.
TEST(ModelParallelCli, TheSummaryCountsSequencesTokensAndBothFlopCounts) {
  auto o = shell(bin() + " simulate " + kGpt3 + " --engine analytic 2>/dev/null");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("analytic ring, 1024 devices, gradient 2925.8 MB a rank (its shard, over "
                        "a data group of 8)"),
            std::string::npos)
      << o.text;
  EXPECT_EQ(o.text.find("scaling efficiency"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("compute share"), std::string::npos) << o.text;
  double sequences = 0, tokens = 0, per_device = 0;
  auto at = o.text.find("throughput");
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(std::sscanf(o.text.c_str() + at, "throughput %lf sequences/s, %lf tokens/s (%lf per",
                        &sequences, &tokens, &per_device),
            3)
      << o.text;
  EXPECT_NEAR(tokens, sequences * 2048, 0.05 * 2048);  // sequences printed to 0.1
  EXPECT_NEAR(per_device, tokens / 1024, 0.05 + 0.5 / 1024);
  auto j = nlohmann::json::parse(
      shell(bin() + " simulate " + kGpt3 + " --engine analytic --json 2>/dev/null").text);
  EXPECT_NEAR(j["megatron_flops_per_s_per_device"].get<double>() /
                  j["model_flops_per_s_per_device"].get<double>(),
              1.3321644, 1e-6);
}

// On CPUs validate times communication only: a model-parallel plan's prediction must leave the
// compute its shapes give out too, as the executed ranks do (it once kept it: +1488%).
TEST(ModelParallelCli, ValidateOnCpusLeavesComputeOutOfBothSides) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-mp-validate-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "plan.yaml")
      << "cluster:\n  name: c\n  devices_per_node: 2\n  device: { flops: 1TFLOPS }\n"
         "  intra_node: { bandwidth: 10GB/s, latency: 1us }\n"
         "  nic: { bandwidth: 10Gbps, latency: 2us }\n"
         "workload:\n  name: gpt-tiny\n"
         "  transformer: { layers: 4, hidden: 64, heads: 4, sequence: 32, vocabulary: 100 }\n"
         "parallelism: { tensor: 2, pipeline: 2 }\n"
         "strategy: { kind: ring }\n"
         "training: { workers: 4, global_batch: 4, steps: 3 }\n";
  fs::path json = dir / "validate.json";
  auto o = shell(bin() + " validate " + (dir / "plan.yaml").string() + " --tolerance 10 -o " +
                 json.string() + " 2>&1");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("compute left out of both sides"), std::string::npos) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(json));
  EXPECT_EQ(j["predicted"]["phases"]["compute_s"].get<double>(), 0) << j["predicted"]["phases"];
  EXPECT_GT(j["predicted"]["phases"]["tensor_comm_s"].get<double>(), 0);
  fs::remove_all(dir);
}

// The search ranks splits by memory: a device without any is refused, naming the field.
TEST(ModelParallelCli, SearchRefusesADeviceWithoutMemory) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-mp-nomem-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "plan.yaml")
      << "cluster:\n  name: c\n  devices_per_node: 8\n  device: { flops: 100TFLOPS }\n"
         "  intra_node: { bandwidth: 100GB/s, latency: 1us }\n"
         "  nic: { bandwidth: 100Gbps, latency: 2us }\n"
         "workload: { name: gpt, transformer: { layers: 8, hidden: 1024, heads: 16, "
         "sequence: 1024, vocabulary: 32000 } }\n"
         "strategy: { kind: ring }\n"
         "training: { workers: 16, batch_per_worker: 2 }\n";
  auto o = shell(bin() + " plan " + (dir / "plan.yaml").string() + " --search 2>&1");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("field 'device.memory': plan --search ranks splits"), std::string::npos)
      << o.text;
  auto margin = shell(bin() + " plan " + kGpt3 + " --search --memory-margin 95 2>&1");
  EXPECT_EQ(margin.code, 2) << margin.text;
  fs::remove_all(dir);
}

// A data-parallel plan keeps the whole model on every device: 175B parameters are 1.4 TB of fp32
// weights and gradients against an 80 GB A100 (refused); 7.5B fit as bf16 weights and gradients
// (30 GB) but not with Adam's 16 bytes a parameter (120 GB: a warning); ResNet-50 says nothing.
TEST(ModelParallelCli, DataParallelPlansAreCheckedAgainstTheDevicesMemory) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-dp-memory-" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& model, const std::string& prec) {
    std::ofstream(dir / name) << "cluster: " << source_path("topologies/dgx-a100-ib.yaml") << "\n"
                              << "workload: " << source_path("models/" + model) << "\n"
                              << "strategy: { kind: ring }\n"
                              << "training: { workers: 16, gradient_precision: " << prec << " }\n";
    return (dir / name).string();
  };
  auto o = shell(bin() + " simulate " + write("gpt3.yaml", "gpt3-175b.yaml", "fp32") +
                 " --engine analytic 2>&1");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("dgx-a100-ib.yaml:7: field 'device.memory': does not fit: data "
                        "parallelism keeps the whole model"),
            std::string::npos)
      << o.text;
  // 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)) = 174.616e9 parameters (l 96, h 12288, V 51200,
  // s 2048), 4 + 4 bytes each.
  EXPECT_NE(o.text.find("1396.9 GB of weights and gradients"), std::string::npos) << o.text;

  o = shell(bin() + " simulate " + write("gpt7.yaml", "gpt-7.5b.yaml", "bf16") +
            " --engine analytic 2>&1");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("warning: "), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("with Adam it does not fit"), std::string::npos) << o.text;

  o = shell(bin() + " simulate " + write("resnet.yaml", "resnet50.yaml", "fp32") +
            " --engine analytic 2>&1");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(o.text.find("device.memory"), std::string::npos) << o.text;
  fs::remove_all(dir);
}

TEST(ModelParallelCli, APlanThatDoesNotFitIsRefusedBeforeItRuns) {
  fs::path dir = fs::temp_directory_path() / "scaleout-mp-cli";
  fs::create_directories(dir);
  std::ofstream(dir / "big.yaml") << "cluster: " << source_path("topologies/dgx-a100-ib.yaml")
                                  << "\n"
                                  << "workload: " << source_path("models/gpt3-175b.yaml") << "\n"
                                  << "parallelism: { tensor: 8, pipeline: 16, microbatch: 2 }\n"
                                  << "strategy: { kind: ring }\n"
                                  << "training: { workers: 1024, global_batch: 1536 }\n";
  for (const char* engine : {"analytic", "sim"}) {
    auto o =
        shell(bin() + " simulate " + (dir / "big.yaml").string() + " --engine " + engine + " 2>&1");
    EXPECT_EQ(o.code, 2) << engine << ": " << o.text;
    EXPECT_NE(o.text.find("dgx-a100-ib.yaml:7: field 'device.memory': does not fit"),
              std::string::npos)
        << o.text;
    EXPECT_NE(o.text.find("activations 111.1 GB"), std::string::npos) << o.text;
  }
  fs::remove_all(dir);
}

// A small model-parallel plan: tensor 2 x pipeline 2 x data 2 on one DGX node.
std::string small_plan(const fs::path& dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "small.yaml")
      << "cluster: " << source_path("topologies/dgx-a100-ib.yaml") << "\n"
      << "workload: { name: gpt, transformer: { layers: 4, hidden: 256, heads: 4, sequence: 128,"
         " vocabulary: 1000 } }\n"
      << "parallelism: { tensor: 2, pipeline: 2 }\n"
      << "strategy: { kind: ring }\n"
      << "training: { workers: 8, global_batch: 8, steps: 2 }\n";
  return (dir / "small.yaml").string();
}

TEST(ModelParallelCli, RunsOnCpusWithEveryCheckAndAsksGpusOfCuda) {
  fs::path dir = fs::temp_directory_path() / "scaleout-mp-run";
  std::string plan = small_plan(dir);
  auto o = shell(bin() + " run " + plan + " --json");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text.substr(o.text.find('{')));  // after the warnings
  EXPECT_EQ(j["engine"], "cpu");
  EXPECT_EQ(j["wrong"], 0);
  EXPECT_EQ(j["parallelism"]["data"], 2);
  // On GPUs the same program runs through NCCL: 8 ranks want 8 GPUs (the gpu tests run 1x1x1).
  auto cuda = shell(bin() + " run " + plan + " --backend cuda 2>&1");
  if (SCALEOUT_CUDA_BUILT) {
    EXPECT_EQ(cuda.code, 1) << cuda.text;
    EXPECT_NE(cuda.text.find("cannot run here"), std::string::npos) << cuda.text;
  } else {
    EXPECT_EQ(cuda.code, 2) << cuda.text;
  }
  // The interleaved schedule has no NCCL calls yet: refused by its line before any GPU is asked.
  std::ofstream(dir / "interleaved.yaml")
      << "cluster: " << source_path("topologies/dgx-a100-ib.yaml") << "\n"
      << "workload: { name: gpt, transformer: { layers: 4, hidden: 256, heads: 4, sequence: 128,"
         " vocabulary: 1000 } }\n"
      << "parallelism: { pipeline: 2, schedule: interleaved, virtual_stages: 2 }\n"
      << "strategy: { kind: ring }\n"
      << "training: { workers: 8, global_batch: 8, steps: 2 }\n";
  auto interleaved =
      shell(bin() + " run " + (dir / "interleaved.yaml").string() + " --backend cuda 2>&1");
  EXPECT_EQ(interleaved.code, 2) << interleaved.text;
  EXPECT_NE(interleaved.text.find("interleaved.yaml:3: field 'parallelism.schedule'"),
            std::string::npos)
      << interleaved.text;
  fs::remove_all(dir);
}

// Expert parallelism executed for real: 8 CPU ranks, two pipeline stages of data 4, all of it
// expert-parallel (4 ranks, one expert each; the experts' data groups are single ranks). Every
// token segment must reach its expert's rank from the right sender and come back unchanged, and the
// experts' gradients sum over their own data group ("wrong" counts what did not); the NCCL dry
// run's grouped calls complete.
TEST(ModelParallelCli, ExpertParallelTokensArriveAndComeBack) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-mp-ep-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "ep.yaml")
      << "cluster: " << source_path("topologies/dgx-a100-ib.yaml") << "\n"
      << "workload: { name: moe, transformer: { layers: 4, hidden: 256, heads: 4, sequence: 128,"
         " vocabulary: 1000, moe: { experts: 4, top_k: 2 } } }\n"
      << "parallelism: { pipeline: 2, expert: 4 }\n"
      << "strategy: { kind: ring }\n"
      << "training: { workers: 8, global_batch: 8, steps: 2 }\n";
  std::string plan = (dir / "ep.yaml").string();
  auto o = shell("(" + bin() + " run " + plan + " --json 2>/dev/null)");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text);
  EXPECT_EQ(j["wrong"], 0);
  EXPECT_EQ(j["parallelism"]["expert"], 4);
  EXPECT_GT(j["phases"]["expert_comm_s"].get<double>(), 0);
  auto dry = shell(bin() + " run " + plan + " --backend cuda --dry-run");
  EXPECT_EQ(dry.code, 0) << dry.text;
  EXPECT_NE(dry.text.find("# checked: every rank's groups complete"), std::string::npos)
      << dry.text;
  // Expert 2 x data 2: the experts' gradients are summed over their own data group of 2 too.
  std::string text;
  {
    std::ifstream in(plan);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  text.replace(text.find("expert: 4"), 9, "expert: 2");
  std::ofstream(dir / "ep2.yaml") << text;
  auto two = shell("(" + bin() + " run " + (dir / "ep2.yaml").string() + " --json 2>/dev/null)");
  ASSERT_EQ(two.code, 0) << two.text;
  EXPECT_EQ(nlohmann::json::parse(two.text)["wrong"], 0);
  // The hierarchical all-to-all over nodes of 2: its relayed, grouped sends complete in the dry
  // run too (each pair's messages matched in order, as NCCL's grouped calls match them).
  std::ofstream(dir / "hier.yaml")
      << "cluster: { name: pairs, devices_per_node: 2, device: { flops: 100TFLOPS },"
         " intra_node: { bandwidth: 150GB/s, latency: 1us },"
         " nic: { bandwidth: 100Gbps, latency: 2us }, nodes: 4 }\n"
      << "workload: { name: moe, transformer: { layers: 4, hidden: 256, heads: 4, sequence: 128,"
         " vocabulary: 1000, moe: { experts: 4, top_k: 2 } } }\n"
      << "parallelism: { pipeline: 2, expert: 4, expert_alltoall: hierarchical }\n"
      << "strategy: { kind: ring }\n"
      << "training: { workers: 8, global_batch: 8, steps: 2 }\n";
  auto hier = shell(bin() + " run " + (dir / "hier.yaml").string() + " --backend cuda --dry-run");
  EXPECT_EQ(hier.code, 0) << hier.text;
  EXPECT_NE(hier.text.find("# checked: every rank's groups complete"), std::string::npos)
      << hier.text;
  fs::remove_all(dir);
}

TEST(ModelParallelCli, SearchListsTheBestSplitsWithTheirBottleneck) {
  auto o = shell(bin() + " plan " + kGpt3 + " --search --top 3 --json");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text);
  ASSERT_EQ(j["best"].size(), 3u);
  EXPECT_GT(j["evaluated"].get<long>(), 100);
  EXPECT_GT(j["dropped"]["does not fit in the device's memory"].get<long>(), 0);
  double last = 0;
  for (const auto& c : j["best"]) {
    EXPECT_GE(c["step_time_s"].get<double>(), last);
    last = c["step_time_s"];
    EXPECT_EQ(c["parallelism"]["tensor"].get<int>() * c["parallelism"]["pipeline"].get<int>() *
                  c["parallelism"]["data"].get<int>(),
              1024);
    EXPECT_LE(c["memory_bytes"]["total"].get<double>(), 80e9);
    EXPECT_FALSE(c["bottleneck"].get<std::string>().empty());
  }
  auto table = shell(bin() + " plan " + kGpt3 + " --search --top 2");
  EXPECT_EQ(table.code, 0);
  EXPECT_NE(table.text.find("splits evaluated in"), std::string::npos) << table.text;
}

// The search proposes what the framework runs (Megatron-LM unless told), and the restriction flags
// keep only the values given; they need --search.
TEST(ModelParallelCli, SearchProposesWhatTheFrameworkRunsWithinTheFlags) {
  auto megatron = shell(bin() + " plan " + kGpt3 + " --search --top 20 --json 2>/dev/null");
  ASSERT_EQ(megatron.code, 0) << megatron.text;
  auto j = nlohmann::json::parse(megatron.text);
  EXPECT_EQ(j["framework"], "megatron");
  EXPECT_GT(j["dropped"]["not run by Megatron-LM"].get<long>(), 0);
  for (const auto& c : j["best"]) EXPECT_LE(c["parallelism"]["zero"].get<int>(), 1);
  auto restricted = shell(bin() + " plan " + kGpt3 +
                          " --search --top 50 --framework deepspeed --tensor 8 --pipeline 8,16 "
                          "--zero 1 --json 2>/dev/null");
  ASSERT_EQ(restricted.code, 0) << restricted.text;
  j = nlohmann::json::parse(restricted.text);
  EXPECT_EQ(j["framework"], "deepspeed");
  ASSERT_FALSE(j["best"].empty());
  for (const auto& c : j["best"]) {
    const auto& p = c["parallelism"];
    EXPECT_EQ(p["tensor"], 8);
    EXPECT_TRUE(p["pipeline"] == 8 || p["pipeline"] == 16) << p;
    EXPECT_EQ(p["zero"], 1);
    EXPECT_EQ(p["schedule"], "1f1b");  // DeepSpeed's pipeline engine does not interleave
  }
  auto interleaved = shell(bin() + " plan " + kGpt3 +
                           " --search --top 50 --schedules interleaved --max-virtual-stages 4 "
                           "--json 2>/dev/null");
  ASSERT_EQ(interleaved.code, 0) << interleaved.text;
  j = nlohmann::json::parse(interleaved.text);
  ASSERT_FALSE(j["best"].empty());
  for (const auto& c : j["best"]) {
    EXPECT_EQ(c["parallelism"]["schedule"], "interleaved");
    EXPECT_LE(c["parallelism"]["virtual_stages"].get<int>(), 4);
  }
  auto stray = shell(bin() + " plan " + kGpt3 + " --tensor 8 2>&1");
  EXPECT_EQ(stray.code, 2) << stray.text;
  EXPECT_NE(stray.text.find("give --search"), std::string::npos) << stray.text;
}

// Plain `plan` keeps the written split at every size; it says so and points at the search, whose
// answer can differ (a data-parallel plan has no split to keep and no such note).
TEST(ModelParallelCli, PlainPlanSaysItKeepsTheWrittenSplit) {
  auto o = shell(bin() + " plan " + kGpt3 + " --target-throughput 60 --max-workers 4096 2>&1");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("note: this answer keeps the written split (tensor 8 x pipeline 16) at "
                        "every size"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("--search` with the same target"), std::string::npos) << o.text;
  auto j = nlohmann::json::parse(
      shell(bin() + " plan " + kGpt3 + " --target-throughput 60 --max-workers 4096 --json").text);
  EXPECT_NE(j["note"].get<std::string>().find("written split"), std::string::npos);
  auto dp = shell(bin() + " plan " + source_path("experiments/quickstart.yaml") +
                  " --target-throughput 10000 2>&1");
  EXPECT_EQ(dp.text.find("note:"), std::string::npos) << dp.text;
}

// A measured result from another framework gives what its log gives (docs/results.md): compare
// takes it, errs only on what it gives, and refuses one without a step time.
TEST(ModelParallelCli, CompareTakesAMeasuredResultFromAnotherFramework) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-mp-foreign-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string predicted = (dir / "predicted.json").string();
  ASSERT_EQ(shell(bin() + " simulate " + kGpt3 + " --engine analytic -o " + predicted +
                  " > /dev/null 2>&1")
                .code,
            0);
  double step = nlohmann::json::parse(std::ifstream(predicted))["step_time_s"];
  // Megatron-LM prints "elapsed time per iteration (ms): 40000.0"; 1,536 sequences an iteration.
  std::ofstream(dir / "measured.json")
      << R"({"engine": "megatron-lm", "strategy": "ring", "workers": 1024,
             "step_time_s": 40.0, "throughput_samples_per_s": 38.4})";
  std::string measured = (dir / "measured.json").string();
  // In a subshell: its warning (no plan stamp) stays out of the JSON.
  auto j = nlohmann::json::parse(
      shell("(" + bin() + " compare " + predicted + " " + measured + " --json 2>/dev/null)").text);
  EXPECT_NEAR(j["step_time_s"]["relative_error"].get<double>(), (step - 40.0) / 40.0, 1e-12);
  EXPECT_NEAR(j["throughput_samples_per_s"]["relative_error"].get<double>(),
              (1536 / step - 38.4) / 38.4, 1e-9);
  EXPECT_FALSE(j["busbw_Bps"].contains("relative_error"));  // not in the log: no error
  auto text = shell(bin() + " compare " + predicted + " " + measured + " 2>&1");
  EXPECT_EQ(text.code, 0) << text.text;
  EXPECT_NE(text.text.find("not measured"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("has no plan stamp (written by another tool"), std::string::npos)
      << text.text;
  std::ofstream(dir / "stepless.json") << R"({"engine": "x", "strategy": "ring", "workers": 4})";
  auto stepless =
      shell(bin() + " compare " + predicted + " " + (dir / "stepless.json").string() + " 2>&1");
  EXPECT_EQ(stepless.code, 2) << stepless.text;
  EXPECT_NE(stepless.text.find("step_time_s"), std::string::npos) << stepless.text;
  fs::remove_all(dir);
}

// A Megatron-LM log as the plan's measured result. tests/data/megatron/gpt3-175b-train.log logs
// iterations 10 (52 s, dropped as warm-up), 20 (40 s over 10 iterations) and 50 (41 s over 30):
// (10 x 40 + 30 x 41) / 40 = 40.75 s an iteration, 1,536 / 40.75 sequences/s, one skipped.
// compare then finds the plan's stamp in it.
TEST(ModelParallelCli, ImportLogMakesAMegatronLogAMeasuredResult) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-mp-log-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string log = source_path("tests/data/megatron/gpt3-175b-train.log");
  std::string measured = (dir / "measured.json").string();
  auto o = shell(bin() + " import-log megatron " + log + " --plan " + kGpt3 + " -o " + measured);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("40 iterations in 2 log lines after 1 dropped as warm-up"),
            std::string::npos)
      << o.text;
  auto j = nlohmann::json::parse(std::ifstream(measured));
  EXPECT_DOUBLE_EQ(j["step_time_s"].get<double>(), 40.75);
  EXPECT_DOUBLE_EQ(j["throughput_samples_per_s"].get<double>(), 1536 / 40.75);
  EXPECT_EQ(j["log"]["skipped_iterations"], 1);
  EXPECT_EQ(j["steps"].size(), 2u);
  std::string predicted = (dir / "predicted.json").string();
  ASSERT_EQ(shell(bin() + " simulate " + kGpt3 + " --engine analytic -o " + predicted +
                  " > /dev/null 2>&1")
                .code,
            0);
  auto compared = shell(bin() + " compare " + predicted + " " + measured + " 2>&1");
  EXPECT_EQ(compared.code, 0) << compared.text;
  EXPECT_EQ(compared.text.find("has no plan stamp"), std::string::npos) << compared.text;
  std::ofstream(dir / "empty.log") << "nothing logged\n";
  auto empty = shell(bin() + " import-log megatron " + (dir / "empty.log").string() + " --plan " +
                     kGpt3 + " 2>&1");
  EXPECT_EQ(empty.code, 2) << empty.text;
  EXPECT_NE(empty.text.find("no iteration lines"), std::string::npos) << empty.text;
  auto warm =
      shell(bin() + " import-log megatron " + log + " --plan " + kGpt3 + " --warm-up 3 2>&1");
  EXPECT_EQ(warm.code, 2) << warm.text;
  EXPECT_NE(warm.text.find("all of them warm-up"), std::string::npos) << warm.text;
  fs::remove_all(dir);
}

// DeepSpeed's throughput lines (a hand-written log in its timer's format, for the BLOOM plan's
// 2,048 sequences a step): global steps 10 (16 samples/s, dropped as warm-up), 20 (20.48: 100 s),
// 30 (19.2: 106.666... s) and 40 (20.48: 100 s), one step each: 306.666.../3 s an iteration; the
// last RunningAvgSamplesPerSec, 19.5, is kept beside it. Lines of other kinds are passed over.
TEST(ModelParallelCli, ImportLogMakesADeepSpeedLogAMeasuredResult) {
  std::string log = source_path("tests/data/deepspeed/bloom-176b-train.log");
  std::string plan = source_path("experiments/bloom176b/bloom-176b.yaml");
  auto o =
      shell("(" + bin() + " import-log deepspeed " + log + " --plan " + plan + " 2>/dev/null)");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text);
  double step = (100.0 + 2048 / 19.2 + 100.0) / 3;
  EXPECT_NEAR(j["step_time_s"].get<double>(), step, 1e-12 * step);
  EXPECT_NEAR(j["throughput_samples_per_s"].get<double>(), 2048 / step, 1e-12 * 2048 / step);
  EXPECT_EQ(j["engine"], "deepspeed");
  EXPECT_EQ(j["steps"].size(), 3u);
  EXPECT_EQ(j["steps"][0]["step"], 20);
  EXPECT_DOUBLE_EQ(j["log"]["running_average_samples_per_s"].get<double>(), 19.5);
  auto megatron = shell(bin() + " import-log megatron " + log + " --plan " + plan + " 2>&1");
  EXPECT_EQ(megatron.code, 2) << megatron.text;  // its iteration line has no elapsed time
  EXPECT_NE(megatron.text.find("no iteration lines"), std::string::npos) << megatron.text;
  auto none = shell(bin() + " import-log deepspeed " + kGpt3 + " --plan " + plan + " 2>&1");
  EXPECT_EQ(none.code, 2) << none.text;
  EXPECT_NE(none.text.find("no throughput lines"), std::string::npos) << none.text;
}

// A Hugging Face config becomes a workload file that plans use as they are; a mixture of experts
// is refused naming the field.
TEST(ModelParallelCli, ImportHfWritesAWorkloadThatPlansUse) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-import-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string workload = (dir / "llama.yaml").string();
  auto o = shell(bin() + " import hf " + source_path("tests/data/hf/llama-2-7b.json") +
                 " --sequence 2048 -o " + workload);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("6.739B parameters"), std::string::npos) << o.text;
  std::ofstream(dir / "plan.yaml")
      << "cluster: " << source_path("topologies/dgx-h100-ib.yaml") << "\nworkload: " << workload
      << "\nparallelism: { tensor: 8 }\nstrategy: { kind: ring }\n"
         "training: { workers: 16, global_batch: 32 }\n";
  auto run = shell(bin() + " simulate " + (dir / "plan.yaml").string() +
                   " --engine analytic --json 2>/dev/null");
  ASSERT_EQ(run.code, 0) << run.text;
  auto j = nlohmann::json::parse(run.text);
  // 32 sequences of 2,048 tokens a step.
  EXPECT_NEAR(j["tokens_per_s"].get<double>(), 32 * 2048 / j["step_time_s"].get<double>(), 1e-6);
  fs::remove_all(dir);
}

// A mixture of experts from its config to a plan's answer and Megatron-LM's arguments. Mixtral
// 8x7B (tests/core/hf_config_test.cpp derives its counts): 46.70B parameters, 12.88B active.
TEST(ModelParallelCli, AMixtureOfExpertsFromItsConfigToTheSplitsArguments) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-moe-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string workload = (dir / "mixtral.yaml").string();
  auto o = shell(bin() + " import hf " + source_path("tests/data/hf/mixtral-8x7b.json") +
                 " --sequence 4096 -o " + workload);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("46.7B parameters, 12.88B active a token"), std::string::npos) << o.text;
  std::string plan = source_path("experiments/model-parallel/mixtral-8x7b-h100.yaml");
  auto summary = shell(bin() + " simulate " + plan + " --engine analytic 2>/dev/null");
  ASSERT_EQ(summary.code, 0) << summary.text;
  EXPECT_NE(summary.text.find("46.70B parameters, 12.88B active a token"), std::string::npos)
      << summary.text;
  auto exported = shell(bin() + " export megatron " + plan + " 2>&1");
  ASSERT_EQ(exported.code, 0) << exported.text;
  for (const char* flag : {"--num-experts 8", "--moe-router-topk 2", "--moe-ffn-hidden-size 14336",
                           "--moe-grouped-gemm"})
    EXPECT_NE(exported.text.find(flag), std::string::npos) << flag << "\n" << exported.text;
  EXPECT_EQ(exported.text.find("--moe-layer-freq"), std::string::npos) << exported.text;
  // The search tries every expert degree dividing the 8 experts and the data-parallel degree, the
  // table shows each split's, and --expert keeps only those asked for.
  std::string ep = source_path("experiments/model-parallel/mixtral-8x7b-h100-ep.yaml");
  auto table = shell(bin() + " plan " + ep + " --search --top 3 2>&1");
  EXPECT_NE(table.text.find(" sp  ep "), std::string::npos) << table.text;
  auto search = [&](const std::string& expert) {
    return nlohmann::json::parse(
        shell("(" + bin() + " plan " + ep + " --search --top 5" + expert + " --json 2>/dev/null)")
            .text);
  };
  std::set<int> degrees;
  nlohmann::json any = search("");  // kept: a range over a temporary's member would dangle
  for (const auto& row : any["best"]) degrees.insert(row["parallelism"]["expert"].get<int>());
  EXPECT_FALSE(degrees.empty());
  for (int expert : {1, 2, 4, 8}) {
    nlohmann::json kept = search(" --expert " + std::to_string(expert));
    ASSERT_FALSE(kept["best"].empty()) << expert;
    for (const auto& row : kept["best"]) {
      EXPECT_EQ(row["parallelism"]["expert"], expert);
      EXPECT_EQ(row["parallelism"]["data"].get<int>() % expert, 0) << row["parallelism"].dump();
    }
  }
  EXPECT_TRUE(search(" --expert 3")["best"].empty());  // 3 does not divide the 8 experts
  // One MoE layer every 2 of Mixtral's 32: splits whose chunks hold an odd number of layers are
  // ranked too (each chunk's all-to-alls its own MoE layers'), their stages' layers listed.
  std::ofstream(dir / "every2.yaml")
      << "cluster: " << source_path("topologies/dgx-h100-ib.yaml") << "\n"
      << "workload: { name: moe, transformer: { layers: 32, hidden: 4096, heads: 32, kv_heads: 8,"
         " ffn_hidden: 14336, mlp: swiglu, sequence: 4096, vocabulary: 32000,"
         " moe: { experts: 8, top_k: 2, every: 2 } } }\n"
      << "parallelism: { framework: any }\n"
      << "strategy: { kind: ring }\n"
      << "training: { workers: 64, global_batch: 512 }\n";
  auto every = nlohmann::json::parse(shell("(" + bin() + " plan " + (dir / "every2.yaml").string() +
                                           " --search --top 50 --json 2>/dev/null)")
                                         .text);
  ASSERT_FALSE(every["best"].empty());
  int odd = 0;
  for (const auto& row : every["best"]) {
    int chunks =
        row["parallelism"]["pipeline"].get<int>() * row["parallelism"]["virtual_stages"].get<int>();
    if (32 / chunks % 2 == 0) continue;
    ++odd;
    EXPECT_TRUE(row["parallelism"].contains("stage_layers")) << row["parallelism"].dump();
  }
  EXPECT_GT(odd, 0);
  fs::remove_all(dir);
}

// A Megatron-LM command line as a plan: written beside its destination, the cluster's path
// relative to it, the flags not modelled said on stderr; one that cannot be planned leaves no
// file behind.
TEST(ModelParallelCli, ImportMegatronWritesAPlanFromTheArguments) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-import-mt-" + std::to_string(getpid()));
  fs::create_directories(dir / "plans");
  std::string plan = (dir / "plans" / "gpt.yaml").string();
  std::string model =
      " --num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048"
      " --vocab-size 50257 --tensor-model-parallel-size 2 --global-batch-size 64 --bf16";
  auto o =
      shell(bin() + " import megatron --cluster " + source_path("topologies/dgx-h100-ib.yaml") +
            " --workers 16 -o " + plan + " --" + model + " --lr 2e-4");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("not modelled, left out: --lr 2e-4"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("a plan of 16 workers"), std::string::npos) << o.text;
  auto run = shell("(" + bin() + " simulate " + plan + " --engine analytic --json 2>/dev/null)");
  ASSERT_EQ(run.code, 0) << run.text;
  auto j = nlohmann::json::parse(run.text);
  EXPECT_EQ(j["parallelism"]["tensor"].get<int>(), 2);
  EXPECT_EQ(j["parallelism"]["data"].get<int>(), 8);
  std::string refused = (dir / "plans" / "refused.yaml").string();
  auto bad =
      shell(bin() + " import megatron --cluster " + source_path("topologies/dgx-h100-ib.yaml") +
            " --workers 16 -o " + refused + " --" + model + " --micro-batch-size 3");
  EXPECT_EQ(bad.code, 2) << bad.text;
  EXPECT_NE(bad.text.find("global_batch"), std::string::npos) << bad.text;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "plans"), fs::directory_iterator{}), 1);
  fs::remove_all(dir);
}

// A plan's split as Megatron-LM's arguments, written out here from each plan's file: GPT-3 175B
// (96 layers, hidden 12,288, 96 heads, ffn 4 x 12,288, sequence 2,048; tensor 8, pipeline 16,
// micro-batch 1, 1,536 sequences, full recomputation, bf16 gradients reduced in bf16, which
// Megatron-LM does only when told) and Llama 2 70B on H100s (GQA of 8 groups,
// SwiGLU, rotary, untied; interleaved 80 / (4 x 5) = 4 layers a chunk, sequence parallel,
// selective recomputation, the distributed optimizer). A split Megatron-LM does not run is refused.
TEST(ModelParallelCli, ExportMegatronWritesTheSplitsArguments) {
  auto gpt3 = shell(bin() + " export megatron " + kGpt3 + " 2>&1");
  ASSERT_EQ(gpt3.code, 0) << gpt3.text;
  std::string args = gpt3.text.substr(gpt3.text.find('\n') + 1);
  EXPECT_EQ(args,
            "--num-layers 96 \\\n--hidden-size 12288 \\\n--num-attention-heads 96 \\\n"
            "--ffn-hidden-size 49152 \\\n--seq-length 2048 \\\n--vocab-size 51200 \\\n"
            "--max-position-embeddings 2048 \\\n"
            "--tensor-model-parallel-size 8 \\\n--pipeline-model-parallel-size 16 \\\n"
            "--recompute-granularity full \\\n--recompute-method uniform \\\n"
            "--recompute-num-layers 1 \\\n--micro-batch-size 1 \\\n--global-batch-size 1536 \\\n"
            "--bf16 \\\n--grad-reduce-in-bf16\n");
  EXPECT_NE(gpt3.text.find("1024 GPUs as tensor 8 x pipeline 16 x data 8"), std::string::npos);
  auto llama = shell(bin() + " export megatron " +
                     source_path("experiments/model-parallel/llama2-70b-h100.yaml") + " 2>&1");
  ASSERT_EQ(llama.code, 0) << llama.text;
  for (const char* line :
       {"--group-query-attention \\\n--num-query-groups 8 \\\n", "--swiglu \\\n",
        "--position-embedding-type rope \\\n", "--untie-embeddings-and-output-weights \\\n",
        "--num-layers-per-virtual-pipeline-stage 4 \\\n", "--sequence-parallel \\\n",
        "--recompute-granularity selective \\\n", "--use-distributed-optimizer \\\n",
        "--global-batch-size 1024 \\\n"})
    EXPECT_NE(llama.text.find(line), std::string::npos) << line << llama.text;
  auto fsdp = shell(bin() + " export megatron " +
                    source_path("experiments/mpt-llm-foundry/mpt-7b-h100-8.yaml") + " 2>&1");
  EXPECT_EQ(fsdp.code, 2) << fsdp.text;
  EXPECT_NE(fsdp.text.find("parallelism.zero"), std::string::npos) << fsdp.text;
  auto alibi = shell(bin() + " export megatron " +
                     source_path("experiments/bloom176b/bloom-176b.yaml") + " 2>&1");
  EXPECT_EQ(alibi.code, 2) << alibi.text;
  EXPECT_NE(alibi.text.find("workload.transformer.positions"), std::string::npos) << alibi.text;
  auto emitted = shell(bin() + " plan " + kGpt3 + " --search --top 1 --emit megatron --json");
  ASSERT_EQ(emitted.code, 0) << emitted.text;
  auto j = nlohmann::json::parse(emitted.text);
  const auto& best = j["best"][0]["parallelism"];
  auto emitted_args = j["megatron_arguments"].get<std::vector<std::string>>();
  auto value_of = [&](const std::string& flag) {
    auto it = std::find(emitted_args.begin(), emitted_args.end(), flag);
    return it == emitted_args.end() || it + 1 == emitted_args.end() ? std::string("-") : *(it + 1);
  };
  EXPECT_EQ(value_of("--tensor-model-parallel-size"), std::to_string(best["tensor"].get<int>()));
  EXPECT_EQ(value_of("--pipeline-model-parallel-size"),
            std::to_string(best["pipeline"].get<int>()));
}

// The search replaces the written split: 192 workers are refused for tensor 8 x pipeline 16 (128
// devices a replica) when the plan is run, and searched when it is only a starting point.
TEST(ModelParallelCli, SearchIgnoresAWrittenSplitThatDoesNotDivideTheWorkers) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-mp-searched-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string text;
  {
    std::ifstream in(kGpt3);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string models = source_path("models"), topologies = source_path("topologies");
  auto write = [&](const std::string& name, const std::string& training) {
    std::string plan = text;
    plan.replace(plan.find("../../topologies"), 16, topologies);
    plan.replace(plan.find("../../models"), 12, models);
    plan.replace(plan.find("training:"), std::string::npos, training);
    std::ofstream(dir / name) << plan;
    return (dir / name).string();
  };
  std::string global = write("global.yaml", "training: { workers: 192, global_batch: 1536 }\n");
  auto run = shell(bin() + " simulate " + global + " --engine analytic");
  EXPECT_EQ(run.code, 2) << run.text;
  EXPECT_NE(run.text.find("do not divide into replicas of 128"), std::string::npos) << run.text;
  auto o = shell(bin() + " plan " + global + " --search --top 3 --json 2>/dev/null");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text);
  ASSERT_FALSE(j["best"].empty());
  for (const auto& c : j["best"]) {
    const auto& p = c["parallelism"];
    EXPECT_EQ(p["tensor"].get<int>() * p["pipeline"].get<int>() * p["data"].get<int>(), 192);
    EXPECT_EQ(1536 % p["data"].get<int>(), 0);
  }
  // Without a global batch, batch_per_worker over a split that does not fit gives none.
  std::string per_worker =
      write("per-worker.yaml", "training: { workers: 192, batch_per_worker: 8 }\n");
  auto refused = shell(bin() + " plan " + per_worker + " --search --top 3");
  EXPECT_EQ(refused.code, 2) << refused.text;
  EXPECT_NE(refused.text.find("per-worker.yaml:"), std::string::npos) << refused.text;
  EXPECT_NE(refused.text.find("give training.global_batch"), std::string::npos) << refused.text;
  fs::remove_all(dir);
}

TEST(ModelParallelCli, RefineSimulatesTheBestSplitsAndRanksThemAgain) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-mp-refine-" + std::to_string(getpid()));
  std::string plan = small_plan(dir);
  auto o = shell(bin() + " plan " + plan + " --search --top 2 --refine 3 -j 2 --json");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text);
  ASSERT_EQ(j["best"].size(), 3u);  // the splits refined are listed
  const auto& refined = j["refined"]["best"];
  ASSERT_EQ(refined.size(), 3u);
  double last = 0;
  for (const auto& c : refined) {
    double simulated = c["simulated_step_time_s"];
    EXPECT_GE(simulated, last);
    last = simulated;
    int rank = c["closed_form_rank"];
    EXPECT_EQ(c["parallelism"], j["best"][rank - 1]["parallelism"]);
  }
  EXPECT_FALSE(j["refined"]["changes"].empty());
  auto table = shell(bin() + " plan " + plan + " --search --refine 2 --progress never");
  EXPECT_EQ(table.code, 0) << table.text;
  EXPECT_NE(table.text.find("simulated (SimGrid), ranked again:"), std::string::npos);
  auto alone = shell(bin() + " plan " + plan + " --refine 2 2>&1");
  EXPECT_EQ(alone.code, 2) << alone.text;
  EXPECT_NE(alone.text.find("--refine"), std::string::npos) << alone.text;
  fs::remove_all(dir);
}

TEST(ModelParallelCli, SearchWithATargetGivesTheSmallestClusterAndItsSplits) {
  auto o = shell(bin() + " plan " + kGpt3 +
                 " --search --top 2 --target-throughput 60 --max-workers 2048 --price 2 --json");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(o.text);
  ASSERT_TRUE(j["target"]["reachable"].get<bool>()) << j["target"];
  int workers = j["target"]["workers"];
  EXPECT_GT(workers, 1024);   // 1,024 falls short of 60 sequences/s
  EXPECT_LT(workers, 2048);   // a count between the doublings
  EXPECT_EQ(workers % 8, 0);  // whole DGX nodes
  EXPECT_DOUBLE_EQ(j["target"]["cost_per_hour"].get<double>(), 2.0 * workers);
  ASSERT_EQ(j["best"].size(), 2u);
  const auto& split = j["best"][0]["parallelism"];
  EXPECT_EQ(split["tensor"].get<int>() * split["pipeline"].get<int>() * split["data"].get<int>(),
            workers);
  EXPECT_GE(j["best"][0]["tokens_per_s"].get<double>(), 60.0 * 2048);
  auto far = shell(bin() + " plan " + kGpt3 + " --search --target-throughput 6000 2>&1");
  EXPECT_EQ(far.code, 1) << far.text;
  EXPECT_NE(far.text.find("not reachable with at most 1024 workers"), std::string::npos)
      << far.text;
}

TEST(ModelParallelCli, AnalyticTraceIsThePipelineSchedule) {
  fs::path dir = fs::temp_directory_path() / ("scaleout-mp-trace-" + std::to_string(getpid()));
  std::string plan = small_plan(dir);  // tensor 2 x pipeline 2 x data 2, 8 sequences
  fs::path trace = dir / "schedule.json";
  auto o = shell(bin() + " simulate " + plan + " --engine analytic --trace " + trace.string());
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(trace));
  std::map<int, int> forwards, backwards;  // by stage
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    (e["name"] == "forward" ? forwards : backwards)[e["tid"].get<int>()]++;
  }
  // Two stages, each running the replica's 4 micro-batches forward and backward.
  EXPECT_EQ(forwards, (std::map<int, int>{{0, 4}, {1, 4}}));
  EXPECT_EQ(backwards, (std::map<int, int>{{0, 4}, {1, 4}}));
  auto dp = shell(bin() + " simulate " + source_path("experiments/quickstart.yaml") +
                  " --engine analytic --trace " + trace.string() + " 2>&1");
  EXPECT_EQ(dp.code, 2) << dp.text;
  EXPECT_NE(dp.text.find("pipeline schedule"), std::string::npos) << dp.text;
  fs::remove_all(dir);
}

TEST(ModelParallelCli, DryRunPrintsNcclCallsThatComplete) {
  fs::path dir = fs::temp_directory_path() / "scaleout-mp-dry-run";
  auto o = shell(bin() + " run " + small_plan(dir) + " --backend cuda --dry-run");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("8 ranks"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("rank 4 group 0: ncclRecv(peer 0, "), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("# checked: every rank's groups complete"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scaleout
