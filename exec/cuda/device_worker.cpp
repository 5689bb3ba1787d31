// A GPU worker of a parameter server whose servers are CPU processes: compute on the device,
// gradients staged to host memory for the TCP push.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <string>

#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/gemm_compute.hpp"
#include "exec/cuda/gpu_backend.hpp"

namespace scaleout::exec {

namespace {

// The device resources both functions share; freed with the last copy of either.
struct DeviceState {
  DeviceState(int device, std::int64_t bytes) : device(device) {
    SCALEOUT_CUDA_CHECK(cudaSetDevice(device));
    SCALEOUT_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking));
    SCALEOUT_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
    gemm = std::make_unique<GemmCompute>(compute_stream);
    auto size = static_cast<std::size_t>(std::max<std::int64_t>(bytes, 1));
    SCALEOUT_CUDA_CHECK(cudaMalloc(&gradient, size));
    SCALEOUT_CUDA_CHECK(cudaMemset(gradient, 0, size));
    SCALEOUT_CUDA_CHECK(cudaMallocHost(&staging, size));
  }
  ~DeviceState() {
    gemm.reset();
    cudaFreeHost(staging);
    cudaFree(gradient);
    cudaStreamDestroy(copy_stream);
    cudaStreamDestroy(compute_stream);
  }
  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;

  int device;
  cudaStream_t compute_stream = nullptr, copy_stream = nullptr;
  std::unique_ptr<GemmCompute> gemm;
  void* gradient = nullptr;
  void* staging = nullptr;
};

}  // namespace

DeviceWorker gpu::make_device_worker(int rank, std::int64_t gradient_bytes) {
  int devices = 0;
  SCALEOUT_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices == 0) throw CudaError("rank " + std::to_string(rank) + ": no GPU");
  auto state = std::make_shared<DeviceState>(rank % devices, gradient_bytes);
  DeviceWorker worker;
  // The current device is per thread: each call names it (compute runs on the fabric's compute
  // thread, the copies on the rank's main thread).
  worker.compute = [state](double flops) {
    SCALEOUT_CUDA_CHECK(cudaSetDevice(state->device));
    state->gemm->launch(flops);
    SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(state->compute_stream));
  };
  worker.stage = [state](std::int64_t bytes) {
    SCALEOUT_CUDA_CHECK(cudaSetDevice(state->device));
    SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(state->staging, state->gradient,
                                        static_cast<std::size_t>(bytes), cudaMemcpyDeviceToHost,
                                        state->copy_stream));
    SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(state->copy_stream));
  };
  return worker;
}

}  // namespace scaleout::exec
