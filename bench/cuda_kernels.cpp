// The NCCL fabric's device work on one GPU: the add kernel's rate (bytes it reads and writes per
// second, against the device's memory bandwidth as the driver reports it) in fp32, fp16 and bf16
// from 1 MB to 1 GB (sizes whose three streams fit in the L2 cache are marked: they can pass the
// memory's peak), and the compute phase's rate (bf16 cuBLAS products, gemm_compute.hpp). Exits 77
// without a usable GPU.
//
//   build/bench/bench_cuda_kernels
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/gemm_compute.hpp"
#include "exec/cuda/kernels.hpp"
#include "exec/cuda/stream_timer.hpp"

using namespace scaleout::exec;

namespace {

// Milliseconds `launch` takes on `stream`, the best of five runs after a warm-up.
float best_ms(cudaStream_t stream, const std::function<void()>& launch) {
  std::vector<double> times = time_on_stream(stream, 5, launch);
  return static_cast<float>(*std::min_element(times.begin(), times.end()) * 1e3);
}

// Peak memory bandwidth in GB/s from the driver's clock and bus width (0 when not reported).
double peak_memory_GBps() {
  int khz = 0, bits = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0) != cudaSuccess ||
      cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, 0) != cudaSuccess)
    return 0;
  return 2.0 * khz * 1e3 * bits / 8 / 1e9;  // double data rate
}

void add_rates(cudaStream_t stream, double peak, std::size_t l2_bytes) {
  std::printf("%-9s %12s %10s %12s %8s\n", "type", "bytes", "time(us)", "GB/s moved", "of peak");
  for (ElementType type : {ElementType::kFp32, ElementType::kFp16, ElementType::kBf16})
    for (std::size_t bytes = 1 << 20; bytes <= (std::size_t{1} << 30); bytes *= 4) {
      void *dst = nullptr, *src = nullptr;
      SCALEOUT_CUDA_CHECK(cudaMalloc(&dst, bytes));
      SCALEOUT_CUDA_CHECK(cudaMalloc(&src, bytes));
      SCALEOUT_CUDA_CHECK(cudaMemset(dst, 0, bytes));
      SCALEOUT_CUDA_CHECK(cudaMemset(src, 0, bytes));
      auto count = static_cast<std::int64_t>(bytes / element_bytes(type));
      float ms = best_ms(stream, [&] { launch_add(type, dst, src, count, stream); });
      double rate = 3.0 * bytes / (ms / 1e3) / 1e9;  // reads dst and src, writes dst
      std::printf("%-9s %12zu %10.1f %12.1f %7.0f%%%s\n", element_name(type), bytes, ms * 1e3, rate,
                  peak > 0 ? 100 * rate / peak : 0.0, 3 * bytes <= l2_bytes ? "  (in L2)" : "");
      cudaFree(dst);
      cudaFree(src);
    }
}

}  // namespace

int main() {
  int devices = 0;
  cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::printf("no usable GPU (%s)\n",
                status != cudaSuccess ? cudaGetErrorString(status) : "no device");
    return 77;
  }
  cudaDeviceProp prop{};
  SCALEOUT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  double peak = peak_memory_GBps();
  std::printf("# %s, memory peak %.0f GB/s\n", prop.name, peak);
  cudaStream_t stream = nullptr;
  SCALEOUT_CUDA_CHECK(cudaStreamCreate(&stream));
  add_rates(stream, peak, static_cast<std::size_t>(prop.l2CacheSize));
  GemmCompute gemm(stream);
  for (double flops : {1e11, 1e12, 1e13}) {
    double queued = 0;
    float ms = best_ms(stream, [&] { queued = gemm.launch(flops); });
    std::printf("compute phase %8.0f GFLOP: %7.3f ms, %6.1f TFLOP/s (bf16 products, fp32 sums)\n",
                queued / 1e9, ms, queued / (ms / 1e3) / 1e12);
  }
  return 0;
}
