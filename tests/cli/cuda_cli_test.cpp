// `run --backend cuda` as a user meets it on a machine without GPUs: the dry-run schedule, and a
// clear refusal (exit 1: no usable GPU here; exit 2: this build has no CUDA). Where a GPU is, the
// commands that use it must give real figures instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/plan/plan_loader.hpp"
#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace {

using scaleout::testing::Output;
using scaleout::testing::shell;

Output run(const std::string& args) { return shell(std::string(SCALEOUT_BINARY) + " " + args); }

const std::string kQuickstart = scaleout::testing::source_path("experiments/quickstart.yaml");

// The whole of what a command prints when this machine's GPUs cannot run it (cli/plan_args.cpp,
// exec/cuda/device_probe.cpp): one line naming why, the CUDA runtime's own error or that it sees
// no device, and exit 1.
void expect_no_usable_gpu(const Output& o) {
  EXPECT_EQ(o.code, 1) << o.text;
  const std::string prefix = "error: --backend cuda cannot run here: no usable GPU: ";
  ASSERT_TRUE(o.text.starts_with(prefix)) << o.text;
  std::string why = o.text.substr(prefix.size());
  EXPECT_TRUE(why == "the CUDA runtime sees no device\n" ||
              (why.starts_with("cudaGetDeviceCount failed: ") && why.size() > 28))
      << o.text;
  EXPECT_EQ(std::count(o.text.begin(), o.text.end(), '\n'), 1) << o.text;
  EXPECT_TRUE(o.text.ends_with("\n")) << o.text;
}

// What a build without CUDA says, whole (exit 2).
void expect_no_cuda_build(const Output& o) {
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_EQ(o.text,
            "error: <input>: field '--backend cuda': this build has no CUDA backend (configure "
            "with the CUDA toolkit and NCCL installed, -DSCALEOUT_CUDA=ON)\n");
}

// The number after `label` at the start of a line of `text` (-1 when there is none).
double number_after(const std::string& text, const std::string& label) {
  auto at = text.find("\n" + label);
  if (at == std::string::npos) return -1;
  double value = -1;
  if (std::sscanf(text.c_str() + at + 1 + label.size(), "%lf", &value) != 1) return -1;
  return value;
}

TEST(CudaCli, DryRunPrintsTheGroupsOfEveryRankForEveryStrategy) {
  for (std::string strategy : {"ring", "torus2d", "hierarchical_ring", "halving_doubling", "tree",
                               "ps", "hierarchical_allreduce", "hierarchical_halving_doubling"}) {
    Output o = run("run " + kQuickstart + " --workers 4 --strategy " + strategy +
                   " --backend cuda --dry-run");
    ASSERT_EQ(o.code, 0) << strategy << ": " << o.text;
    for (int r = 0; r < 4; ++r)
      EXPECT_NE(o.text.find("rank " + std::to_string(r) + " group 0: "), std::string::npos)
          << strategy << o.text;
    EXPECT_NE(o.text.find("ncclSend(peer "), std::string::npos) << strategy;
    EXPECT_NE(o.text.find("ncclRecv(peer "), std::string::npos) << strategy;
  }
}

// Every compressor's exchange is an NCCL schedule that completes, and a compressed run asks for
// its GPUs like any other (the device codecs run where a GPU is: gpu_tests).
TEST(CudaCli, CompressedPlansHaveAScheduleAndNeedOnlyGpus) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "scaleout-cuda-compressed";
  fs::create_directories(dir);
  for (std::string kind : {"topk", "randomk", "int8", "onebit", "powersgd"}) {
    fs::path plan = dir / (kind + ".yaml");
    std::ofstream(plan) << "cluster: "
                        << scaleout::testing::source_path("topologies/v100-ib-switch.yaml") << "\n"
                        << "workload: " << scaleout::testing::source_path("models/resnet50.yaml")
                        << "\nstrategy: { kind: ring }\n"
                        << "training: { workers: 4, batch_per_worker: 32, steps: 2,"
                        << " compression: { kind: " << kind << " } }\n";
    Output dry = run("run " + plan.string() + " --backend cuda --dry-run");
    ASSERT_EQ(dry.code, 0) << kind << ": " << dry.text;
    for (int r = 0; r < 4; ++r)
      EXPECT_NE(dry.text.find("rank " + std::to_string(r) + " group 0: ncclSend"),
                std::string::npos)
          << kind;
    Output o = run("run " + plan.string() + " --backend cuda --no-baselines");
    if (SCALEOUT_CUDA_BUILT) {
      EXPECT_EQ(o.code, 1) << kind << ": " << o.text;
      EXPECT_TRUE(o.text.find("no usable GPU") != std::string::npos ||
                  o.text.find("needs 4 GPUs") != std::string::npos)
          << o.text;
    } else {
      EXPECT_EQ(o.code, 2) << o.text;
    }
  }
  fs::remove_all(dir);
}

TEST(CudaCli, DryRunBelongsToTheCudaBackend) {
  Output o = run("run " + kQuickstart + " --workers 2 --dry-run");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("--backend cuda"), std::string::npos) << o.text;
}

TEST(CudaCli, WithoutEnoughGpusTheRunSaysWhy) {
  // 16 ranks want 16 devices: refused on this machine, and on any machine with fewer.
  Output o = run("run " + kQuickstart + " --workers 16 --backend cuda --no-baselines");
  if (SCALEOUT_CUDA_BUILT) {
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find("cannot run here"), std::string::npos) << o.text;
    EXPECT_TRUE(o.text.find("no usable GPU") != std::string::npos ||
                o.text.find("16 GPUs") != std::string::npos)
        << o.text;
  } else {
    EXPECT_EQ(o.code, 2) << o.text;
    EXPECT_NE(o.text.find("no CUDA"), std::string::npos) << o.text;
  }
}

// Where a GPU is, it is calibrated: the rates printed are measured (positive), and the written
// topology carries them. Elsewhere the refusal is the whole output, and nothing is written.
TEST(CudaCli, CalibrateOnGpusMeasuresThemOrSaysWhyItCannot) {
  std::string out = (std::filesystem::temp_directory_path() / "scaleout-cuda-calibrated.yaml");
  std::filesystem::remove(out);
  Output o = run("calibrate " + scaleout::testing::source_path("topologies/v100-ib-switch.yaml") +
                 " --backend cuda -o " + out);
  if (!SCALEOUT_CUDA_BUILT) {
    expect_no_cuda_build(o);
  } else if (o.code == 0) {
    // "compute  X GFLOP/s per device (GPU name, bf16 cuBLAS products)"; the add kernel's rate;
    // the GPU codecs' rates; one GPU's NIC is not measured.
    double gflops = number_after(o.text, "compute ");
    EXPECT_GT(number_after(o.text, "reduction "), 0) << o.text;
    double topk = -1, quantize = -1, lowrank = -1;
    auto at = o.text.find("\ncompressors top-k ");
    ASSERT_NE(at, std::string::npos) << o.text;
    ASSERT_EQ(std::sscanf(o.text.c_str() + at + 1,
                          "compressors top-k %lf, quantize %lf, PowerSGD step %lf G elements/s "
                          "(the GPU)",
                          &topk, &quantize, &lowrank),
              3)
        << o.text;
    EXPECT_NE(o.text.find("\ninter-node  not measured here (claimed values kept)"),
              std::string::npos)
        << o.text;
    EXPECT_NE(o.text.find("\nwritten to " + out + "\n"), std::string::npos) << o.text;
    // Printed to 0.001, written to 6 significant digits: each written rate is the one printed
    // under its name.
    scaleout::core::Cluster c = scaleout::core::load_cluster(out);
    for (auto [got, printed] :
         {std::pair{c.device.flops, gflops}, std::pair{c.device.compress_topk, topk},
          std::pair{c.device.compress_quantize, quantize},
          std::pair{c.device.compress_lowrank, lowrank}}) {
      EXPECT_GT(printed, 0) << o.text;
      EXPECT_NEAR(got / 1e9, printed, 0.0005 + 1e-5 * printed) << o.text;
    }
  } else {
    expect_no_usable_gpu(o);
    EXPECT_FALSE(std::filesystem::exists(out)) << "nothing written on failure";
  }
  std::filesystem::remove(out);
}

TEST(CudaCli, CalibratingAModelsProductsNeedsAGpuAndATransformer) {
  namespace fs = std::filesystem;
  std::string topology = scaleout::testing::source_path("topologies/dgx-a100-ib.yaml");
  std::string gpt = scaleout::testing::source_path("models/gpt-7.5b.yaml");
  fs::path out = fs::temp_directory_path() / "scaleout-cuda-model.yaml";
  fs::remove(out);
  fs::remove(out.string() + ".topo");
  std::string outputs = " -o " + out.string() + ".topo --model-output " + out.string();
  Output cpu = run("calibrate " + topology + outputs + " --model " + gpt);
  EXPECT_EQ(cpu.code, 2) << cpu.text;
  EXPECT_NE(cpu.text.find("times the products with cuBLAS"), std::string::npos) << cpu.text;
  Output alone = run("calibrate " + topology + " --backend cuda -o x.yaml --model " + gpt);
  EXPECT_EQ(alone.code, 2) << alone.text;
  EXPECT_NE(alone.text.find("go together"), std::string::npos) << alone.text;
  Output o = run("calibrate " + topology + outputs + " --backend cuda --model " + gpt);
  if (!SCALEOUT_CUDA_BUILT) {
    expect_no_cuda_build(o);
  } else if (o.code == 0) {
    // "products  N timed, M sizes, efficiency a..b of 312 TFLOP/s": the model written with its
    // table, the topology with the claimed peak (the table is a share of it).
    auto at = o.text.find("\nproducts ");
    ASSERT_NE(at, std::string::npos) << o.text;
    unsigned long timed = 0, sizes = 0;
    double least = -1, most = -1, peak = -1;
    ASSERT_EQ(std::sscanf(o.text.c_str() + at + 1,
                          "products %lu timed, %lu sizes, efficiency %lf..%lf of %lf TFLOP/s",
                          &timed, &sizes, &least, &most, &peak),
              5)
        << o.text;
    EXPECT_GT(timed, 0u);
    EXPECT_GT(sizes, 0u);
    EXPECT_GT(least, 0);
    EXPECT_LE(least, most);
    EXPECT_DOUBLE_EQ(peak, 312);  // the A100 preset's bf16 peak, as the topology claims it
    EXPECT_NE(o.text.find("\nmodel       written to " + out.string() + "\n"), std::string::npos)
        << o.text;
    EXPECT_EQ(scaleout::core::load_workload(out.string()).efficiency_by_size.size(), sizes);
    EXPECT_DOUBLE_EQ(scaleout::core::load_cluster(out.string() + ".topo").device.flops, 312e12);
  } else {
    expect_no_usable_gpu(o);
  }
  if (o.code != 0) {
    EXPECT_FALSE(fs::exists(out)) << "nothing written on failure";
  }
  fs::remove(out);
  fs::remove(out.string() + ".topo");
}

// The NCCL schedule `run --backend cuda --dry-run` prints for a tiny GPT on 8 devices of a DGX
// A100 node, split as `parallelism` (a flow mapping's inside) with `training`'s batch and steps.
Output dry_run_tiny_gpt(const std::string& name, const std::string& parallelism,
                        const std::string& training) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("scaleout-cuda-" + name);
  fs::create_directories(dir);
  fs::path plan = dir / "plan.yaml";
  std::ofstream(plan) << "cluster: "
                      << scaleout::testing::source_path("topologies/dgx-a100-ib.yaml") << "\n"
                      << "workload:\n  name: gpt-tiny\n  efficiency: 0.5\n"
                      << "  transformer: { layers: 4, hidden: 64, heads: 4, sequence: 32, "
                      << "vocabulary: 100 }\n"
                      << "parallelism: { " << parallelism << " }\n"
                      << "strategy: { kind: ring }\n"
                      << "training: { workers: 8, " << training << " }\n";
  Output dry = run("run " + plan.string() + " --backend cuda --dry-run");
  fs::remove_all(dir);
  return dry;
}

// Context parallelism under NCCL's grouped calls: each layer's key-value block goes to and comes
// from the context partner (rank 2, a tensor group of 2 away), and the schedule completes.
TEST(CudaCli, AContextParallelPlanHasAScheduleThatCompletes) {
  Output dry = dry_run_tiny_gpt("context", "tensor: 2, context: 2, pipeline: 2",
                                "global_batch: 4, steps: 1");
  ASSERT_EQ(dry.code, 0) << dry.text;
  EXPECT_NE(dry.text.find("rank 0 group 0: ncclRecv(peer 2, "), std::string::npos) << dry.text;
  EXPECT_NE(dry.text.find("rank 2 group 0: ncclRecv(peer 0, "), std::string::npos) << dry.text;
}

// Megatron-Core's overlapped gradient reduce and parameter gather under NCCL's grouped calls: the
// buckets' reduce-scatters in the last backward and the parameters' all-gathers in the first
// forward (data groups of 2, one layer a bucket) complete on every rank.
TEST(CudaCli, OverlappedBucketsAndParameterGathersHaveAScheduleThatCompletes) {
  Output dry = dry_run_tiny_gpt("param-gather",
                                "tensor: 2, pipeline: 2, zero: 1, overlap_grad_reduce: true, "
                                "bucket_size: 1, overlap_param_gather: true",
                                "global_batch: 8, steps: 2");
  ASSERT_EQ(dry.code, 0) << dry.text;
  for (int r = 0; r < 8; ++r)
    EXPECT_NE(dry.text.find("rank " + std::to_string(r) + " group 0: "), std::string::npos)
        << dry.text;
}

TEST(CudaCli, AsynchronousParameterServersNeedGpusOnlyForTheirWorkers) {
  std::string plan =
      scaleout::testing::source_path("experiments/emulated/async-ps-8-two-racks.yaml");
  Output dry = run("run " + plan + " --backend cuda --dry-run");
  EXPECT_EQ(dry.code, 2) << dry.text;
  EXPECT_NE(dry.text.find("no NCCL schedule"), std::string::npos) << dry.text;
  // 6 workers and 2 CPU servers: six GPUs asked for, not eight.
  Output o = run("run " + plan + " --backend cuda --no-baselines");
  if (SCALEOUT_CUDA_BUILT) {
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_TRUE(o.text.find("no usable GPU") != std::string::npos ||
                o.text.find("needs 6 GPUs") != std::string::npos)
        << o.text;
  } else {
    EXPECT_EQ(o.code, 2) << o.text;
  }
}

// Where a GPU is, validate runs the plan on it (the tolerance opened wide: the GPU here need not be
// the topology's V100) and reports a measured step with every sum right. Elsewhere the refusal is
// the whole output.
TEST(CudaCli, ValidateOnGpusRunsThereOrSaysWhyItCannot) {
  std::string json = (std::filesystem::temp_directory_path() / "scaleout-cuda-validate.json");
  std::filesystem::remove(json);
  Output o =
      run("validate " + kQuickstart + " --workers 1 --backend cuda --tolerance 10 -o " + json);
  if (!SCALEOUT_CUDA_BUILT) {
    expect_no_cuda_build(o);
  } else if (o.code == 0) {
    auto j = nlohmann::json::parse(std::ifstream(json));
    const auto& measured = j["measured"];
    EXPECT_EQ(measured["engine"], "cuda");
    EXPECT_EQ(measured["workers"], 1);
    EXPECT_EQ(measured["wrong"], 0);
    EXPECT_GT(measured["step_time_s"].get<double>(), 0);
    EXPECT_GT(j["predicted"]["step_time_s"].get<double>(), 0);
    // "step time: median step predicted P ms, measured M ms (...)": each the median of its
    // result's steps, so one of them (to the printed 0.001 ms).
    double predicted_ms = -1, measured_ms = -1;
    auto at = o.text.find("step time: median step predicted ");
    ASSERT_NE(at, std::string::npos) << o.text;
    ASSERT_EQ(
        std::sscanf(o.text.c_str() + at, "step time: median step predicted %lf ms, measured %lf ms",
                    &predicted_ms, &measured_ms),
        2)
        << o.text;
    auto one_of_the_steps = [](double ms, const nlohmann::json& result) {
      for (const auto& step : result["steps"])
        if (std::abs(step["time_s"].get<double>() * 1e3 - ms) <= 0.0006) return true;
      return false;
    };
    EXPECT_GT(measured_ms, 0) << o.text;
    EXPECT_TRUE(one_of_the_steps(predicted_ms, j["predicted"])) << o.text;
    EXPECT_TRUE(one_of_the_steps(measured_ms, measured)) << o.text;
  } else {
    expect_no_usable_gpu(o);
    EXPECT_FALSE(std::filesystem::exists(json)) << "nothing written on failure";
  }
  std::filesystem::remove(json);
}

}  // namespace
