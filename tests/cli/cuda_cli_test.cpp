// `run --backend cuda` as a user meets it on a machine without GPUs: the dry-run schedule, and a
// clear refusal (exit 1: no usable GPU here; exit 2: this build has no CUDA).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace {

using scaleout::testing::Output;
using scaleout::testing::shell;

Output run(const std::string& args) { return shell(std::string(SCALEOUT_BINARY) + " " + args); }

const std::string kQuickstart = scaleout::testing::source_path("experiments/quickstart.yaml");

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

TEST(CudaCli, CalibrateOnGpusSaysWhyItCannot) {
  std::string out = (std::filesystem::temp_directory_path() / "scaleout-cuda-calibrated.yaml");
  Output o = run("calibrate " + scaleout::testing::source_path("topologies/v100-ib-switch.yaml") +
                 " --backend cuda -o " + out);
  if (!SCALEOUT_CUDA_BUILT) {
    EXPECT_EQ(o.code, 2) << o.text;
    EXPECT_NE(o.text.find("no CUDA"), std::string::npos) << o.text;
  } else if (o.code != 0) {  // a machine with a GPU calibrates it (the gpu tests check that)
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find("no usable GPU"), std::string::npos) << o.text;
    EXPECT_FALSE(std::filesystem::exists(out)) << "nothing written on failure";
  }
  std::filesystem::remove(out);
}

TEST(CudaCli, CalibratingAModelsProductsNeedsAGpuAndATransformer) {
  namespace fs = std::filesystem;
  std::string topology = scaleout::testing::source_path("topologies/dgx-a100-ib.yaml");
  std::string gpt = scaleout::testing::source_path("models/gpt-7.5b.yaml");
  fs::path out = fs::temp_directory_path() / "scaleout-cuda-model.yaml";
  std::string outputs = " -o " + out.string() + ".topo --model-output " + out.string();
  Output cpu = run("calibrate " + topology + outputs + " --model " + gpt);
  EXPECT_EQ(cpu.code, 2) << cpu.text;
  EXPECT_NE(cpu.text.find("times the products with cuBLAS"), std::string::npos) << cpu.text;
  Output alone = run("calibrate " + topology + " --backend cuda -o x.yaml --model " + gpt);
  EXPECT_EQ(alone.code, 2) << alone.text;
  EXPECT_NE(alone.text.find("go together"), std::string::npos) << alone.text;
  Output o = run("calibrate " + topology + outputs + " --backend cuda --model " + gpt);
  if (!SCALEOUT_CUDA_BUILT) {
    EXPECT_EQ(o.code, 2) << o.text;
  } else if (o.code != 0) {  // a machine with a GPU times them (the gpu tests check that)
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find("no usable GPU"), std::string::npos) << o.text;
  }
  if (o.code != 0) EXPECT_FALSE(fs::exists(out)) << "nothing written on failure";
  fs::remove(out);
  fs::remove(out.string() + ".topo");
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

TEST(CudaCli, ValidateOnGpusSaysWhyItCannot) {
  Output o = run("validate " + kQuickstart + " --workers 1 --backend cuda");
  if (!SCALEOUT_CUDA_BUILT) {
    EXPECT_EQ(o.code, 2) << o.text;
  } else if (o.code != 0) {  // a machine with a GPU validates (the gpu tests check that)
    EXPECT_EQ(o.code, 1) << o.text;
    EXPECT_NE(o.text.find("no usable GPU"), std::string::npos) << o.text;
  }
}

}  // namespace
