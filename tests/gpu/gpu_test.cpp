// What only a GPU can check: the add kernel in every precision, compute on its own stream, and
// every strategy's exact sums through NCCL on one device. Without a usable GPU the binary prints
// why and exits 77, which ctest reports as Skipped (never a pass).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/check_values.hpp"
#include "core/rank_plan.hpp"
#include "core/slowdown.hpp"
#include "core/step_model.hpp"
#include "core/strategies/collective_training.hpp"
#include "exec/cuda/cuda_check.hpp"
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
    double t0 = fabric.now();
    auto first = fabric.compute_async(1e10);
    auto second = fabric.compute_async(1e10);
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

TEST(NcclFabric, EveryCollectiveSumsExactlyOnOneGpu) {
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
    std::vector<std::string> expected{"nccl_allreduce", "nccl_allreduce_inplace"};
    if (strategy == "torus2d") expected.push_back("nccl_torus2d_rows_columns");
    EXPECT_EQ(names, expected) << strategy;
  }
  std::filesystem::remove(out);
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
