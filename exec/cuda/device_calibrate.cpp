// calibrate --backend cuda: the rates the NCCL fabric's device work runs at, and the link between
// two GPUs of this machine as NCCL moves data over it.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/device_codecs.hpp"
#include "exec/cuda/gemm_compute.hpp"
#include "exec/cuda/gpu_backend.hpp"
#include "exec/cuda/kernels.hpp"
#include "exec/cuda/stream_timer.hpp"

namespace scaleout::exec {

namespace {

using Clock = std::chrono::steady_clock;

// Operations per second of the compute phase, on a phase long enough to hide launches.
double gemm_rate(cudaStream_t stream) {
  GemmCompute gemm(stream);
  double queued = 0;
  double s = median_seconds(stream, 5, [&] { queued = gemm.launch(2e13); });
  return queued / s;
}

// Bytes per second the add kernel reads and writes on fp32 buffers far larger than the L2.
double add_rate(cudaStream_t stream) {
  const std::int64_t count = std::int64_t{1} << 28;  // 1 GiB each
  void *dst = nullptr, *src = nullptr;
  SCALEOUT_CUDA_CHECK(cudaMalloc(&dst, count * 4));
  SCALEOUT_CUDA_CHECK(cudaMalloc(&src, count * 4));
  SCALEOUT_CUDA_CHECK(cudaMemset(dst, 0, count * 4));
  SCALEOUT_CUDA_CHECK(cudaMemset(src, 0, count * 4));
  double s =
      median_seconds(stream, 5, [&] { launch_add(ElementType::kFp32, dst, src, count, stream); });
  cudaFree(dst);
  cudaFree(src);
  return 3.0 * count * 4 / s;
}

// Devices 0 and 1 in one process: `count` bytes from `from` to the other, both streams waited.
void send_between(ncclComm_t* comms, cudaStream_t* streams, void** buffers, int from,
                  std::size_t bytes) {
  int to = 1 - from;
  SCALEOUT_NCCL_CHECK(ncclGroupStart());
  SCALEOUT_NCCL_CHECK(ncclSend(buffers[from], bytes, ncclInt8, to, comms[from], streams[from]));
  SCALEOUT_NCCL_CHECK(ncclRecv(buffers[to], bytes, ncclInt8, from, comms[to], streams[to]));
  SCALEOUT_NCCL_CHECK(ncclGroupEnd());
  for (int d : {0, 1}) {
    SCALEOUT_CUDA_CHECK(cudaSetDevice(d));
    SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(streams[d]));
  }
}

LinkMeasure measure_pair() {
  const std::size_t big = 256u << 20;
  int devices[2] = {0, 1};
  ncclComm_t comms[2];
  SCALEOUT_NCCL_CHECK(ncclCommInitAll(comms, 2, devices));
  cudaStream_t streams[2];
  void* buffers[2];
  for (int d : {0, 1}) {
    SCALEOUT_CUDA_CHECK(cudaSetDevice(d));
    SCALEOUT_CUDA_CHECK(cudaStreamCreate(&streams[d]));
    SCALEOUT_CUDA_CHECK(cudaMalloc(&buffers[d], big));
  }
  auto seconds = [&](std::size_t bytes, bool round_trip, int runs) {
    std::vector<double> times;
    for (int i = 0; i <= runs; ++i) {  // the first is a warm-up
      auto t0 = Clock::now();
      send_between(comms, streams, buffers, 0, bytes);
      if (round_trip) send_between(comms, streams, buffers, 1, bytes);
      if (i > 0) times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  };
  LinkMeasure m;
  m.latency_s = seconds(4, true, 200) / 2;
  m.bandwidth_Bps = static_cast<double>(big) / seconds(big, false, 5);
  for (int d : {0, 1}) {
    SCALEOUT_CUDA_CHECK(cudaSetDevice(d));
    cudaFree(buffers[d]);
    cudaStreamDestroy(streams[d]);
    ncclCommDestroy(comms[d]);
  }
  SCALEOUT_CUDA_CHECK(cudaSetDevice(0));
  return m;
}

}  // namespace

Calibration gpu::calibrate() {
  int devices = 0;
  SCALEOUT_CUDA_CHECK(cudaGetDeviceCount(&devices));
  SCALEOUT_CUDA_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  SCALEOUT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream = nullptr;
  SCALEOUT_CUDA_CHECK(cudaStreamCreate(&stream));
  Calibration c;
  c.device_name = prop.name;
  c.device = std::string(prop.name) + ", bf16 cuBLAS products";
  c.device_flops = gemm_rate(stream);
  c.reduction_Bps = add_rate(stream);
  c.codecs = measure_device_codec_rates(stream);
  c.codecs_measured = true;
  c.codecs_where = "the GPU";
  cudaStreamDestroy(stream);
  c.inter_measured = false;
  c.intra_measured = devices >= 2;
  if (c.intra_measured) c.intra_node = measure_pair();
  return c;
}

}  // namespace scaleout::exec
