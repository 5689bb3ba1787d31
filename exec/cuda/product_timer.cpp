// calibrate --backend cuda --model: each of a transformer's products timed with cuBLAS as a
// training step runs it (bf16 operands and output, fp32 accumulation, batched for the attention's
// heads), operands allocated for that product alone and filled with small non-zero values.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/device_array.hpp"
#include "exec/cuda/gpu_backend.hpp"
#include "exec/cuda/stream_timer.hpp"

namespace scaleout::exec {

namespace {

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError(std::string(what) + " failed: " + cublasGetStatusString(status));
}

// A dimension as cuBLAS takes it: a fraction (a vocabulary not divisible by the tensor degree)
// rounds up, as Megatron pads the vocabulary.
int dimension(double x) { return static_cast<int>(std::ceil(x - 1e-9)); }

class CublasProductTimer : public core::ProductTimer {
 public:
  CublasProductTimer() {
    SCALEOUT_CUDA_CHECK(cudaSetDevice(0));
    SCALEOUT_CUDA_CHECK(cudaStreamCreate(&stream_));
    check(cublasCreate(&handle_), "cublasCreate");
    check(cublasSetStream(handle_, stream_), "cublasSetStream");
  }
  ~CublasProductTimer() override {
    cublasDestroy(handle_);
    cudaStreamDestroy(stream_);
  }
  CublasProductTimer(const CublasProductTimer&) = delete;
  CublasProductTimer& operator=(const CublasProductTimer&) = delete;

  double seconds(const core::MatrixProduct& p) override {
    int m = dimension(p.m), n = dimension(p.n), k = dimension(p.k), batch = dimension(p.batch);
    // A batch too large for a quarter of the free memory (the attention scores of long
    // sequences) is timed in part and scaled: its products are alike.
    std::size_t free = 0, total = 0;
    SCALEOUT_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    auto elements = [](int rows, int cols, int b) {
      return static_cast<std::int64_t>(rows) * cols * b;
    };
    auto bytes = [&](int rows, int cols, int b) {
      return static_cast<std::size_t>(elements(rows, cols, b)) * 2;
    };
    int part = batch;
    while (part > 1 && bytes(m, k, part) + bytes(k, n, part) + bytes(m, n, part) > free / 4)
      part = (part + 1) / 2;
    const ElementType bf16 = ElementType::kBf16;
    DeviceArray a(bf16, elements(m, k, part)), b(bf16, elements(k, n, part)),
        c(bf16, elements(m, n, part));
    // 0x3c3c in bf16 is about 0.0115: small, non-zero, no overflow in any sum.
    SCALEOUT_CUDA_CHECK(cudaMemsetAsync(a.get(), 0x3c, bytes(m, k, part), stream_));
    SCALEOUT_CUDA_CHECK(cudaMemsetAsync(b.get(), 0x3c, bytes(k, n, part), stream_));
    const float one = 1.0f, zero = 0.0f;
    auto product = [&] {
      check(cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a.get(),
                                       CUDA_R_16BF, m, static_cast<long long>(m) * k, b.get(),
                                       CUDA_R_16BF, k, static_cast<long long>(k) * n, &zero,
                                       c.get(), CUDA_R_16BF, m, static_cast<long long>(m) * n, part,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx");
    };
    // Short products are launched back to back, a millisecond's worth a sample, so that the
    // events time the device's work rather than one launch's latency.
    double once = median_seconds(stream_, 3, product);
    int repeats = std::clamp(static_cast<int>(1e-3 / std::max(once, 1e-7)), 1, 1000);
    auto repeated = [&] {
      for (int i = 0; i < repeats; ++i) product();
    };
    double each = median_seconds(stream_, 7, repeated) / repeats;
    return each * batch / part;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace

std::unique_ptr<core::ProductTimer> gpu::make_product_timer() {
  return std::make_unique<CublasProductTimer>();
}

}  // namespace scaleout::exec
