#include "exec/cuda/gemm_compute.hpp"

#include <string>
#include <vector>

#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/kernels.hpp"
#include "exec/cuda/library_check.hpp"

namespace scaleout::exec {

namespace {

// Values in [-1, 1) on a 1/64 grid: exact in bf16, varied enough to keep every bit of the
// multipliers busy.
void fill_operand(void* operand, std::int64_t count, cudaStream_t stream) {
  std::vector<float> host(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>(static_cast<int>((i * 2654435761u) % 128) - 64) / 64.0f;
  float* staging = nullptr;
  SCALEOUT_CUDA_CHECK(cudaMalloc(&staging, host.size() * sizeof(float)));
  SCALEOUT_CUDA_CHECK(
      cudaMemcpy(staging, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  launch_from_float(ElementType::kBf16, staging, operand, count, stream);
  SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
  SCALEOUT_CUDA_CHECK(cudaFree(staging));
}

}  // namespace

GemmCompute::GemmCompute(cudaStream_t stream) : stream_(stream) {
  const std::int64_t n = std::int64_t{kTile} * kTile;
  SCALEOUT_CUDA_CHECK(cudaMalloc(&a_, n * 2));
  SCALEOUT_CUDA_CHECK(cudaMalloc(&b_, n * 2));
  SCALEOUT_CUDA_CHECK(cudaMalloc(&c_, n * 4));
  fill_operand(a_, n, stream);
  fill_operand(b_, n, stream);
  check_blas(cublasCreate(&handle_), "cublasCreate");
  check_blas(cublasSetStream(handle_, stream), "cublasSetStream");
  product(kTile, kTile);
  product(256, kStep);
  SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

GemmCompute::~GemmCompute() {
  if (handle_) cublasDestroy(handle_);
  cudaFree(a_);
  cudaFree(b_);
  cudaFree(c_);
}

// C (side x side, fp32) = A (side x k) * B (k x side), bf16 operands, fp32 accumulation.
void GemmCompute::product(int side, int k) {
  const float one = 1.0f, zero = 0.0f;
  check_blas(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, side, side, k, &one, a_, CUDA_R_16BF,
                          side, b_, CUDA_R_16BF, k, &zero, c_, CUDA_R_32F, side, CUBLAS_COMPUTE_32F,
                          CUBLAS_GEMM_DEFAULT),
             "cublasGemmEx");
}

double GemmCompute::launch(double flops) {
  GemmSplit split = split_gemms(flops, kTile, kStep);
  for (std::int64_t i = 0; i < split.full_tiles; ++i) product(kTile, kTile);
  if (split.rest_k > 0) product(static_cast<int>(split.rest_side), static_cast<int>(split.rest_k));
  return split.flops(kTile);
}

}  // namespace scaleout::exec
