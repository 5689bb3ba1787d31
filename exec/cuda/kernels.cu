#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/kernels.hpp"

namespace scaleout::exec {

namespace {

constexpr int kThreads = 256;

__device__ float to_f(float v) { return v; }
__device__ float to_f(__half v) { return __half2float(v); }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ T from_f(float v);
template <>
__device__ float from_f<float>(float v) {
  return v;
}
template <>
__device__ __half from_f<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// x[k] += y[k] for one 16-byte vector. Halves add in pairs with __hadd2: one correctly rounded
// addition each, which equals the float sum rounded back (the sum of two fp16 or bf16 values is
// exact in float wherever it could sit near a rounding midpoint), in fewer instructions per byte.
__device__ void add_vector(float* x, const float* y) {
#pragma unroll
  for (int k = 0; k < 4; ++k) x[k] += y[k];
}
__device__ void add_vector(__half* x, const __half* y) {
  auto* x2 = reinterpret_cast<__half2*>(x);
  const auto* y2 = reinterpret_cast<const __half2*>(y);
#pragma unroll
  for (int k = 0; k < 4; ++k) x2[k] = __hadd2(x2[k], y2[k]);
}
__device__ void add_vector(__nv_bfloat16* x, const __nv_bfloat16* y) {
  auto* x2 = reinterpret_cast<__nv_bfloat162*>(x);
  const auto* y2 = reinterpret_cast<const __nv_bfloat162*>(y);
#pragma unroll
  for (int k = 0; k < 4; ++k) x2[k] = __hadd2(x2[k], y2[k]);
}

// The first `vectors` x kPer elements go as 16-byte vectors, the rest one by one.
template <typename T>
__global__ void add_kernel(T* dst, const T* src, std::int64_t count, std::int64_t vectors) {
  constexpr int kPer = 16 / sizeof(T);
  std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::int64_t v = first; v < vectors; v += stride) {
    uint4 a = reinterpret_cast<const uint4*>(dst)[v];
    uint4 b = reinterpret_cast<const uint4*>(src)[v];
    T* x = reinterpret_cast<T*>(&a);
    const T* y = reinterpret_cast<const T*>(&b);
    add_vector(x, y);
    reinterpret_cast<uint4*>(dst)[v] = a;
  }
  for (std::int64_t i = vectors * kPer + first; i < count; i += stride)
    dst[i] = from_f<T>(to_f(dst[i]) + to_f(src[i]));
}

template <typename T>
__global__ void to_float_kernel(const T* src, float* dst, std::int64_t count) {
  std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    dst[i] = to_f(src[i]);
}

template <typename T>
__global__ void from_float_kernel(const float* src, T* dst, std::int64_t count) {
  std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    dst[i] = from_f<T>(src[i]);
}

unsigned blocks_for(std::int64_t items) {
  return static_cast<unsigned>(
      std::clamp<std::int64_t>((items + kThreads - 1) / kThreads, 1, 65535));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <typename T>
void add_as(void* dst, const void* src, std::int64_t count, cudaStream_t stream) {
  constexpr int kPer = 16 / sizeof(T);
  std::int64_t vectors = aligned16(dst) && aligned16(src) ? count / kPer : 0;
  add_kernel<T><<<blocks_for(std::max<std::int64_t>(vectors, 1)), kThreads, 0, stream>>>(
      static_cast<T*>(dst), static_cast<const T*>(src), count, vectors);
}

}  // namespace

void launch_add(ElementType type, void* dst, const void* src, std::int64_t count,
                cudaStream_t stream) {
  if (count <= 0) return;
  switch (type) {
    case ElementType::kFp32:
      add_as<float>(dst, src, count, stream);
      break;
    case ElementType::kFp16:
      add_as<__half>(dst, src, count, stream);
      break;
    case ElementType::kBf16:
      add_as<__nv_bfloat16>(dst, src, count, stream);
      break;
  }
  SCALEOUT_CUDA_CHECK(cudaGetLastError());
}

void launch_to_float(ElementType type, const void* src, float* dst, std::int64_t count,
                     cudaStream_t stream) {
  if (count <= 0) return;
  unsigned blocks = blocks_for(count);
  switch (type) {
    case ElementType::kFp32:
      to_float_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const float*>(src), dst, count);
      break;
    case ElementType::kFp16:
      to_float_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const __half*>(src), dst, count);
      break;
    case ElementType::kBf16:
      to_float_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(src), dst,
                                                       count);
      break;
  }
  SCALEOUT_CUDA_CHECK(cudaGetLastError());
}

void launch_from_float(ElementType type, const float* src, void* dst, std::int64_t count,
                       cudaStream_t stream) {
  if (count <= 0) return;
  unsigned blocks = blocks_for(count);
  switch (type) {
    case ElementType::kFp32:
      from_float_kernel<<<blocks, kThreads, 0, stream>>>(src, static_cast<float*>(dst), count);
      break;
    case ElementType::kFp16:
      from_float_kernel<<<blocks, kThreads, 0, stream>>>(src, static_cast<__half*>(dst), count);
      break;
    case ElementType::kBf16:
      from_float_kernel<<<blocks, kThreads, 0, stream>>>(src, static_cast<__nv_bfloat16*>(dst),
                                                         count);
      break;
  }
  SCALEOUT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace scaleout::exec
