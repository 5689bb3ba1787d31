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
#include "exec/cuda/stream_timer.hpp"
#include "exec/cuda_backend.hpp"

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
    auto bytes = [&](int rows, int cols) {
      return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * batch * 2;
    };
    void *a = nullptr, *b = nullptr, *c = nullptr;
    SCALEOUT_CUDA_CHECK(cudaMalloc(&a, bytes(m, k)));
    SCALEOUT_CUDA_CHECK(cudaMalloc(&b, bytes(k, n)));
    SCALEOUT_CUDA_CHECK(cudaMalloc(&c, bytes(m, n)));
    // 0x3c3c in bf16 is about 0.0115: small, non-zero, no overflow in any sum.
    SCALEOUT_CUDA_CHECK(cudaMemsetAsync(a, 0x3c, bytes(m, k), stream_));
    SCALEOUT_CUDA_CHECK(cudaMemsetAsync(b, 0x3c, bytes(k, n), stream_));
    const float one = 1.0f, zero = 0.0f;
    auto product = [&] {
      check(cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a,
                                       CUDA_R_16BF, m, static_cast<long long>(m) * k, b,
                                       CUDA_R_16BF, k, static_cast<long long>(k) * n, &zero, c,
                                       CUDA_R_16BF, m, static_cast<long long>(m) * n, batch,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx");
    };
    std::vector<double> times = time_on_stream(stream_, 7, product);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

 private:
  cudaStream_t stream_ = nullptr;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace

std::unique_ptr<core::ProductTimer> make_gpu_product_timer() {
  return std::make_unique<CublasProductTimer>();
}

}  // namespace scaleout::exec
