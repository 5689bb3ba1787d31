// A compute phase as a training step runs one on a GPU: matrix products on the tensor cores, sized
// to the phase's floating-point operations. bf16 inputs with fp32 accumulation, as automatic mixed
// precision trains (the gradient's precision is the exchange's business, not the compute's);
// operands hold small non-zero values, since products of zeros run faster than real ones.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "exec/cuda/gemm_split.hpp"

namespace scaleout::exec {

class GemmCompute {
 public:
  static constexpr int kTile = 4096;
  static constexpr int kStep = 16;  // k of the thinner product: a multiple of the MMA's k

  // Allocates the operands on the current device; products queue on `stream`. Runs one product of
  // each kind before returning, so that cuBLAS's first-call set-up (tens of milliseconds) is not
  // charged to a training step.
  explicit GemmCompute(cudaStream_t stream);
  ~GemmCompute();
  GemmCompute(const GemmCompute&) = delete;
  GemmCompute& operator=(const GemmCompute&) = delete;

  // Queues products of about `flops` operations; returns the operations queued.
  double launch(double flops);

 private:
  void product(int side, int k);

  cublasHandle_t handle_ = nullptr;
  cudaStream_t stream_;
  void* a_ = nullptr;  // tile x tile elements, bf16
  void* b_ = nullptr;  // tile x tile elements, bf16
  void* c_ = nullptr;  // tile x tile elements, fp32
};

}  // namespace scaleout::exec
