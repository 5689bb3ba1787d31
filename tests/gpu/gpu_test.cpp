// What only a GPU can check: the add kernel in every precision, compute on its own stream, and
// every strategy's exact sums through NCCL on one device. Without a usable GPU the binary prints
// why and exits 77, which ctest reports as Skipped (never a pass).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model/step_model.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/programs/check_values.hpp"
#include "core/programs/strategies/collective_training.hpp"
#include "core/reliability/slowdown.hpp"
#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/gemm_compute.hpp"
#include "exec/cuda/kernels.hpp"
#include "exec/cuda/nccl_fabric.hpp"
#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::exec {
namespace {

constexpr int kSkip = 77;

// A device buffer of `count` elements of `type` holding `values`.
void* upload(ElementType type, const std::vector<float>& values) {
  float* staging = nullptr;
  void* out = nullptr;
  SCALEOUT_CUDA_CHECK(cudaMalloc(&staging, values.size() * sizeof(float)));
  SCALEOUT_CUDA_CHECK(cudaMalloc(&out, values.size() * element_bytes(type)));
  SCALEOUT_CUDA_CHECK(
      cudaMemcpy(staging, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice));
  launch_from_float(type, staging, out, static_cast<std::int64_t>(values.size()), nullptr);
  SCALEOUT_CUDA_CHECK(cudaDeviceSynchronize());
  SCALEOUT_CUDA_CHECK(cudaFree(staging));
  return out;
}

TEST(AddKernel, ExactInEveryPrecisionAlignedOrNot) {
  for (ElementType type : {ElementType::kFp32, ElementType::kFp16, ElementType::kBf16}) {
    const std::int64_t n = 10007;  // not a multiple of any vector width: a scalar tail too
    std::vector<float> a(n), b(n);
    for (std::int64_t i = 0; i < n; ++i) {
      a[i] = static_cast<float>(i % 7 + 1);
      b[i] = static_cast<float>(i % 5 + 1);
    }
    for (std::int64_t offset : {0, 1, 8}) {  // 1: unaligned, scalar path throughout
      void* dst = upload(type, a);
      void* src = upload(type, b);
      auto* d = static_cast<std::byte*>(dst) + offset * element_bytes(type);
      auto* s = static_cast<std::byte*>(src) + offset * element_bytes(type);
      launch_add(type, d, s, n - offset, nullptr);
      std::vector<float> got = download_floats(type, dst, n, nullptr);
      long wrong = 0;
      for (std::int64_t i = 0; i < n; ++i) wrong += got[i] != (i < offset ? a[i] : a[i] + b[i]);
      EXPECT_EQ(wrong, 0) << element_name(type) << " offset " << offset;
      cudaFree(dst);
      cudaFree(src);
    }
  }
}

// A one-rank communicator on device 0.
ncclComm_t one_rank_comm() {
  ncclComm_t comm = nullptr;
  int device = 0;
  SCALEOUT_NCCL_CHECK(ncclCommInitAll(&comm, 1, &device));
  return comm;
}

TEST(NcclFabric, ComputeRunsOnItsOwnStreamAndReportsTheDeviceTime) {
  ncclComm_t comm = one_rank_comm();
  core::CheckValues values(1, 1, "fp32");
  {
    NcclFabric fabric(comm, ElementType::kFp32, 1024, values, std::chrono::milliseconds(20000));
    fabric.wait_compute(fabric.compute_async(1e12));  // cuBLAS loads the products' kernels
    double t0 = fabric.now();
    auto first = fabric.compute_async(1e12);
    auto second = fabric.compute_async(1e12);
    double queued = fabric.now();
    double end_first = fabric.wait_compute(first);
    double end_second = fabric.wait_compute(second);
    EXPECT_LT(queued - t0, end_first - t0) << "compute_async must not wait for the kernel";
    EXPECT_GT(end_second, end_first);
    EXPECT_LE(end_second, fabric.now() + 1e-3);
  }
  ncclCommDestroy(comm);
}

class Quiet : public core::CollectiveObserver {
 public:
  void step_done(int, const core::StepTimes&) override {}
};

// With one rank every program returns before its first send: no data moves through NCCL here.
// What this proves is the fabric's side on a GPU: the gradient produced on the device in each
// precision, the programs driving the fabric to the end of their steps, and the download matching
// the known values exactly. NCCL moving data between ranks needs a machine with two GPUs or more
// (docs/gpus.md lists which tests need what).
TEST(NcclFabric, OneRankRunsEveryProgramAndDownloadsItsGradientExactly) {
  // A parameter server needs a second rank, which NCCL refuses on the same device.
  for (core::StrategyKind kind : {core::StrategyKind::kRing, core::StrategyKind::kTorus2d,
                                  core::StrategyKind::kHierarchicalRing,
                                  core::StrategyKind::kHalvingDoubling, core::StrategyKind::kTree})
    for (const char* precision : {"fp32", "fp16", "bf16"}) {
      core::Plan plan =
          testing::collective_plan(testing::switch_cluster(1, 1e9, 1e-6), kind, 1, 100003);
      plan.training.gradient_precision = precision;
      plan.training.overlap = true;
      core::RankPlan ranks = core::plan_ranks(plan);
      core::StepModel model = core::make_step_model(plan);
      core::CheckValues values(1, 1, precision);
      ncclComm_t comm = one_rank_comm();
      {
        NcclFabric fabric(comm, element_type(precision), model.elements, values,
                          std::chrono::milliseconds(20000));
        auto program = core::make_strategy(plan, ranks.layout);
        Quiet observer;
        core::CollectiveTraining(*program, model, core::Slowdown(plan.stragglers), 1, 2, true)
            .run(fabric, observer);
        fabric.synchronize();
        std::vector<float> got = fabric.download();
        long wrong = 0;
        for (std::size_t i = 0; i < got.size(); ++i)
          wrong += got[i] != values.sum(static_cast<std::int64_t>(i));
        EXPECT_EQ(wrong, 0) << core::strategy_name(kind) << " " << precision;
      }
      ncclCommDestroy(comm);
    }
}

TEST(RunCuda, OneWorkerEndToEndChecksTheSumsAndTimesNccl) {
  auto out = std::filesystem::temp_directory_path() / "scaleout-gpu-run.json";
  for (std::string strategy : {"ring", "torus2d"}) {
    testing::Output o = testing::shell(std::string(SCALEOUT_BINARY) + " run " +
                                       testing::source_path("experiments/quickstart.yaml") +
                                       " --workers 1 --strategy " + strategy +
                                       " --backend cuda -o " + out.string());
    ASSERT_EQ(o.code, 0) << o.text;
    auto j = nlohmann::json::parse(std::ifstream(out));
    EXPECT_EQ(j["engine"], "cuda");
    EXPECT_EQ(j["wrong"], 0);
    std::vector<std::string> names;
    for (const auto& b : j["baselines"]) {
      names.push_back(b["name"]);
      EXPECT_EQ(b["wrong"], 0) << b.dump();
    }
    std::vector<std::string> expected{"nccl_allreduce", "nccl_allreduce_inplace",
                                      "nccl_allreduce_ring", "nccl_allreduce_tree"};
    if (strategy == "torus2d") expected.push_back("nccl_torus2d_rows_columns");
    EXPECT_EQ(names, expected) << strategy;
    // The device computes the plan's whole workload (no CPU-sized share): no faster than
    // 2 PFLOP/s, more than any GPU's bf16 peak today.
    core::Plan plan = core::load_plan(testing::source_path("experiments/quickstart.yaml"));
    core::StepModel model = core::make_step_model(plan);
    double flops = (model.forward_flops + model.backward_flops) * plan.workload.efficiency;
    EXPECT_GT(j["phases"]["compute_s"].get<double>(), flops / 2e15) << j["phases"].dump();
    EXPECT_TRUE(j["warnings"].empty()) << j["warnings"].dump();
  }
  std::filesystem::remove(out);
}

TEST(RunCuda, AModelParallelPlanOnOneGpuRunsItsProgramChecked) {
  // tensor 1 x pipeline 1 x data 1, four micro-batches: the model-parallel program on the NCCL
  // fabric (no transfer at N = 1: what crosses NCCL needs two GPUs or more).
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "scaleout-gpu-mp";
  fs::create_directories(dir);
  std::ofstream(dir / "one.yaml")
      << "cluster: " << testing::source_path("topologies/dgx-a100-ib.yaml") << "\n"
      << "workload: { name: gpt, transformer: { layers: 4, hidden: 1024, heads: 8, sequence: 512,"
         " vocabulary: 1000 } }\n"
      << "parallelism: { tensor: 1, pipeline: 1, microbatch: 1, schedule: 1f1b }\n"
      << "strategy: { kind: ring }\n"
      << "training: { workers: 1, global_batch: 4, steps: 3 }\n";
  testing::Output o =
      testing::shell(std::string(SCALEOUT_BINARY) + " run " + (dir / "one.yaml").string() +
                     " --backend cuda -o " + (dir / "out.json").string());
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(dir / "out.json"));
  EXPECT_EQ(j["engine"], "cuda");
  EXPECT_EQ(j["wrong"], 0);
  EXPECT_EQ(j["parallelism"]["microbatches"], 4) << j["parallelism"].dump();
  EXPECT_GT(j["tokens_per_s"].get<double>(), 0);
  ASSERT_EQ(j["steps"].size(), 3u);
  std::printf("model-parallel 1x1x1 on the GPU: %s\n", j["phases"].dump().c_str());
  fs::remove_all(dir);
}

TEST(RunCuda, CompressedPlansOnOneGpuMatchTheReference) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "scaleout-gpu-compressed";
  fs::create_directories(dir);
  for (std::string kind : {"topk", "randomk", "int8", "onebit", "powersgd"}) {
    std::ofstream(dir / "plan.yaml")
        << "cluster: " << testing::source_path("topologies/v100-ib-switch.yaml") << "\n"
        << "workload: " << testing::source_path("models/resnet50.yaml") << "\n"
        << "strategy: { kind: ring }\n"
        << "training: { workers: 1, batch_per_worker: 32, steps: 3,"
        << " compression: { kind: " << kind << " } }\n";
    testing::Output o =
        testing::shell(std::string(SCALEOUT_BINARY) + " run " + (dir / "plan.yaml").string() +
                       " --backend cuda --no-baselines -o " + (dir / "out.json").string());
    ASSERT_EQ(o.code, 0) << kind << ": " << o.text;
    auto j = nlohmann::json::parse(std::ifstream(dir / "out.json"));
    EXPECT_EQ(j["wrong"], 0) << kind;
    std::printf("%s on the GPU: %s\n", kind.c_str(), j["phases"].dump().c_str());
  }
  fs::remove_all(dir);
}

TEST(RunCuda, ACorruptedElementIsCountedAndFailsTheRun) {
  auto out = std::filesystem::temp_directory_path() / "scaleout-gpu-corrupt.json";
  testing::Output o =
      testing::shell("SCALEOUT_CORRUPT_RANK=0:1 " + std::string(SCALEOUT_BINARY) + " run " +
                     testing::source_path("experiments/quickstart.yaml") +
                     " --workers 1 --backend cuda --no-baselines -o " + out.string());
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_NE(o.text.find("1 elements differ from the exact sum"), std::string::npos) << o.text;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(out))["wrong"], 1);
  std::filesystem::remove(out);
}

TEST(GemmCompute, TimeFollowsTheOperations) {
  cudaStream_t stream = nullptr;
  SCALEOUT_CUDA_CHECK(cudaStreamCreate(&stream));
  {
    GemmCompute gemm(stream);
    cudaEvent_t begin, end;
    SCALEOUT_CUDA_CHECK(cudaEventCreate(&begin));
    SCALEOUT_CUDA_CHECK(cudaEventCreate(&end));
    auto seconds = [&](double flops) {
      SCALEOUT_CUDA_CHECK(cudaEventRecord(begin, stream));
      gemm.launch(flops);
      SCALEOUT_CUDA_CHECK(cudaEventRecord(end, stream));
      SCALEOUT_CUDA_CHECK(cudaEventSynchronize(end));
      float ms = 0;
      SCALEOUT_CUDA_CHECK(cudaEventElapsedTime(&ms, begin, end));
      return ms / 1e3;
    };
    seconds(1e12);  // warm-up: cuBLAS picks its kernels
    double one = seconds(2e12), four = seconds(8e12);
    EXPECT_GT(four / one, 3.0);
    EXPECT_LT(four / one, 5.0);
    // Tensor cores: every bf16-capable GPU of recent years does more than 10 TFLOP/s.
    EXPECT_GT(8e12 / four, 1e13);
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
  }
  cudaStreamDestroy(stream);
}

TEST(CalibrateCuda, WritesTheDeviceRatesIntoATopologyThatLoads) {
  auto out = std::filesystem::temp_directory_path() / "scaleout-gpu-calibrated.yaml";
  std::string topology = testing::source_path("topologies/v100-ib-switch.yaml");
  testing::Output o = testing::shell(std::string(SCALEOUT_BINARY) + " calibrate " + topology +
                                     " --backend cuda -o " + out.string());
  ASSERT_EQ(o.code, 0) << o.text;
  core::Cluster claimed = core::load_cluster(topology), measured = core::load_cluster(out.string());
  EXPECT_GT(measured.device.flops, 1e13);
  EXPECT_NE(measured.device.flops, claimed.device.flops);
  cudaDeviceProp prop{};
  SCALEOUT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  EXPECT_EQ(measured.device.name, prop.name);
  // One machine: the inter-node link is never measured here, and keeps its claimed rate.
  EXPECT_EQ(measured.nic.bandwidth, claimed.nic.bandwidth);
  // The GPU codecs' rates replace the defaults (top-k's waits on the host keep it far below the
  // element-wise passes).
  EXPECT_NE(measured.device.compress_topk, claimed.device.compress_topk);
  EXPECT_GT(measured.device.compress_quantize, measured.device.compress_topk);
  EXPECT_GT(measured.device.compress_lowrank, 0);
  std::printf("GPU codecs: %s\n", o.text.c_str());
  std::filesystem::remove(out);
}

TEST(CalibrateCuda, TimesAModelsProductsIntoATableThatLoads) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "scaleout-gpu-model-table";
  fs::create_directories(dir);
  // A claimed peak above any GPU's: every product's share is then below one.
  std::ofstream(dir / "fast.yaml")
      << "name: fast\nnodes: auto\ndevices_per_node: 8\n"
         "device: { name: X, flops: 4PFLOPS, memory: 80GB }\n"
         "intra_node: { kind: nvswitch, bandwidth: 300GB/s, latency: 1us }\n"
         "nic: { bandwidth: 200Gbps, latency: 2us }\nnetwork: { kind: switch }\n";
  testing::Output o =
      testing::shell(std::string(SCALEOUT_BINARY) + " calibrate " + (dir / "fast.yaml").string() +
                     " --backend cuda -o " + (dir / "out.yaml").string() + " --model " +
                     testing::source_path("models/gpt-7.5b.yaml") + " --model-output " +
                     (dir / "gpt.yaml").string());
  ASSERT_EQ(o.code, 0) << o.text;
  core::Workload w = core::load_workload((dir / "gpt.yaml").string());
  ASSERT_GE(w.efficiency_by_size.size(), 10u);
  // Products of a few GFLOP reach less of the peak than the largest (launch and tiling costs).
  EXPECT_LT(w.efficiency_by_size.front().second, w.efficiency_by_size.back().second);
  EXPECT_GT(w.efficiency_by_size.back().second * 4e15, 1e13);  // above 10 TFLOP/s
  std::printf("gpt-7.5b products: %s\n", o.text.c_str());
  fs::remove_all(dir);
}

TEST(RunCuda, AsynchronousParameterServerWithAGpuWorkerAndCpuServers) {
  auto dir = std::filesystem::temp_directory_path() / "scaleout-gpu-async-ps";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "plan.yaml")
      << "cluster: " << testing::source_path("topologies/v100-ib-switch.yaml") << "\n"
      << "workload: { name: small, parameters: 4M, flops_per_sample: 24.6GFLOP }\n"
      << "strategy: { kind: ps, ps: { servers: 2, mode: async } }\n"
      << "training: { workers: 1, batch_per_worker: 64, steps: 6 }\n";
  auto out = dir / "measured.json";
  testing::Output o =
      testing::shell(std::string(SCALEOUT_BINARY) + " run " + (dir / "plan.yaml").string() +
                     " --backend cuda -o " + out.string());
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(j["engine"], "cuda");
  EXPECT_EQ(j["wrong"], 0);
  EXPECT_EQ(j["gradients"]["applied"], 6);
  // The worker's compute ran on the GPU: 64 x 24.6 GFLOP / 0.3 (the model's default efficiency)
  // at no more than 2 PFLOP/s.
  EXPECT_GT(j["phases"]["compute_s"].get<double>(), 64 * 24.6e9 / 0.3 / 2e15) << j.dump();
  std::filesystem::remove_all(dir);
}

TEST(ValidateCuda, TheCalibratedPredictionHoldsOnThisGpu) {
  auto dir = std::filesystem::temp_directory_path() / "scaleout-gpu-validate";
  std::filesystem::create_directories(dir);
  std::string bin = SCALEOUT_BINARY;
  testing::Output c =
      testing::shell(bin + " calibrate " + testing::source_path("topologies/v100-ib-switch.yaml") +
                     " --backend cuda -o " + (dir / "calibrated.yaml").string());
  ASSERT_EQ(c.code, 0) << c.text;
  std::ofstream(dir / "plan.yaml") << "cluster: calibrated.yaml\n"
                                   << "workload: " << testing::source_path("models/resnet50.yaml")
                                   << "\nstrategy: { kind: ring }\n"
                                   << "training: { workers: 1, batch_per_worker: 64, steps: 4 }\n";
  testing::Output v = testing::shell(bin + " validate " + (dir / "plan.yaml").string() +
                                     " --backend cuda -o " + (dir / "v.json").string());
  EXPECT_EQ(v.code, 0) << v.text;
  auto j = nlohmann::json::parse(std::ifstream(dir / "v.json"));
  EXPECT_EQ(j["measured"]["engine"], "cuda");
  EXPECT_LT(std::abs(j["step_time_error"].get<double>()), 0.10) << v.text;
  // Compute is in the step: ResNet-50's 64 samples take milliseconds, not microseconds.
  EXPECT_GT(j["measured"]["step_time_s"].get<double>(), 1e-3) << v.text;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace scaleout::exec

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Listing the tests (ctest's discovery) needs no device.
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();
  int devices = 0;
  cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no usable GPU (%s)\n",
                status != cudaSuccess ? cudaGetErrorString(status) : "the runtime sees no device");
    return scaleout::exec::kSkip;
  }
  return RUN_ALL_TESTS();
}
