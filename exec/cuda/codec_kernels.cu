// Float arithmetic here goes through the _rn intrinsics, never a * b + c, so that no multiply-add
// is fused and each result rounds as the host codec's does.
#include <algorithm>

#include "core/codecs/codec_steps.hpp"
#include "exec/cuda/codec_kernels.hpp"
#include "exec/cuda/cuda_check.hpp"

namespace scaleout::exec {

namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = kCompactTile / kThreads;
static_assert(core::kScaleLanes == kThreads, "a scale's lanes are one block's threads");

unsigned blocks_for(std::int64_t items) {
  return static_cast<unsigned>(
      std::clamp<std::int64_t>((items + kThreads - 1) / kThreads, 1, 65535));
}

#define SCALEOUT_GRID_LOOP(i, n)                                                                   \
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)

__device__ float word_of(std::uint32_t bits) { return __uint_as_float(bits); }
__device__ std::uint32_t bits_of(float w) { return __float_as_uint(w); }

// Element i of an encoded slot (scales first, then the packed codes), as the host decodes it.
// (`bits` 1: signs; 2 to 8: two's complement codes, as core::decode_quantized reads them).
__device__ float decoded(const float* slot, std::int64_t i, std::int64_t per_scale,
                         std::int64_t scales, int bits) {
  float scale = slot[i / per_scale];
  int per_word = 32 / bits;
  std::uint32_t code = bits_of(slot[scales + i / per_word]) >> ((i % per_word) * bits);
  if (bits == 1) return (code & 1u) ? scale : -scale;
  auto shift = static_cast<unsigned>(32 - bits);
  int value = static_cast<std::int32_t>(code << shift) >> shift;
  return __fmul_rn(static_cast<float>(value), scale);
}

// The largest code magnitude of a `bits`-bit element (core::quantize_levels).
__host__ __device__ int levels_of(int bits) { return bits == 1 ? 1 : (1 << (bits - 1)) - 1; }

std::int64_t scales_of(std::int64_t count, std::int64_t per_scale) {
  return (count + per_scale - 1) / per_scale;
}

__global__ void sum_into_kernel(float* x, const float* a, const float* b, std::int64_t count) {
  SCALEOUT_GRID_LOOP(i, count) x[i] = b ? __fadd_rn(a[i], b[i]) : a[i];
}

__global__ void sample_kernel(const float* x, std::int64_t first, std::int64_t stride,
                              std::int64_t size, float* out) {
  SCALEOUT_GRID_LOOP(j, size) out[j] = fabsf(x[first + j * stride]);
}

// Each thread takes kPerThread consecutive elements of its block's tile.
__device__ int thread_candidates(const float* x, std::int64_t count, float threshold,
                                 std::int64_t begin) {
  int n = 0;
  for (int e = 0; e < kPerThread; ++e) n += begin + e < count && fabsf(x[begin + e]) >= threshold;
  return n;
}

__global__ void count_kernel(const float* x, std::int64_t count, float threshold,
                             std::int64_t* tile_counts) {
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * kCompactTile +
                       static_cast<std::int64_t>(threadIdx.x) * kPerThread;
  atomicAdd(&total, thread_candidates(x, count, threshold, begin));  // integers: any order
  __syncthreads();
  if (threadIdx.x == 0) tile_counts[blockIdx.x] = total;
}

__global__ void write_kernel(const float* x, std::int64_t count, float threshold,
                             const std::int64_t* tile_offsets, std::uint32_t* indices,
                             float* values) {
  __shared__ std::int64_t before[kThreads];
  std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * kCompactTile +
                       static_cast<std::int64_t>(threadIdx.x) * kPerThread;
  before[threadIdx.x] = thread_candidates(x, count, threshold, begin);
  __syncthreads();
  if (threadIdx.x == 0) {  // exclusive scan of the threads' counts, from the tile's offset
    std::int64_t at = tile_offsets[blockIdx.x];
    for (int t = 0; t < kThreads; ++t) {
      std::int64_t n = before[t];
      before[t] = at;
      at += n;
    }
  }
  __syncthreads();
  std::int64_t at = before[threadIdx.x];
  for (int e = 0; e < kPerThread; ++e) {
    std::int64_t i = begin + e;
    if (i < count && fabsf(x[i]) >= threshold) {
      indices[at] = static_cast<std::uint32_t>(i);
      values[at++] = x[i];
    }
  }
}

__global__ void gather_kernel(const float* x, const std::uint32_t* idx, std::int64_t k,
                              float* block) {
  SCALEOUT_GRID_LOOP(j, k) {
    block[j] = word_of(idx[j]);
    block[k + j] = x[idx[j]];
  }
}

__global__ void zero_at_kernel(float* residual, const std::uint32_t* idx, std::int64_t k) {
  SCALEOUT_GRID_LOOP(j, k) residual[idx[j]] = 0.0f;
}

__global__ void scatter_add_kernel(const float* block, std::int64_t k, float* grad) {
  SCALEOUT_GRID_LOOP(j, k) {
    std::uint32_t i = bits_of(block[j]);
    grad[i] = __fadd_rn(grad[i], block[k + j]);
  }
}

// One block per scale: lane t folds elements t, t + 256, ... in turn, then the lanes fold
// pairwise, as core::chunk_scale does.
__global__ void scale_kernel(const float* x, std::int64_t count, std::int64_t per_scale, int bits,
                             float* slot) {
  bool onebit = bits == 1;
  __shared__ float lanes[kThreads];
  std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * per_scale;
  std::int64_t n = min(per_scale, count - begin);
  float lane = 0.0f;
  for (std::int64_t i = threadIdx.x; i < n; i += kThreads)
    lane = onebit ? __fadd_rn(lane, fabsf(x[begin + i])) : fmaxf(lane, fabsf(x[begin + i]));
  lanes[threadIdx.x] = lane;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      lanes[threadIdx.x] = onebit ? __fadd_rn(lanes[threadIdx.x], lanes[threadIdx.x + s])
                                  : fmaxf(lanes[threadIdx.x], lanes[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    slot[blockIdx.x] = onebit ? __fdiv_rn(lanes[0], static_cast<float>(n))
                              : __fdiv_rn(lanes[0], static_cast<float>(levels_of(bits)));
}

// One thread per packed word: the codes of its elements, each by its own chunk's scale.
__global__ void pack_kernel(const float* x, std::int64_t count, std::int64_t per_scale, int bits,
                            float* slot) {
  int per_word = 32 / bits;
  long levels = levels_of(bits);
  std::uint32_t mask = (1u << bits) - 1;
  std::int64_t scales = (count + per_scale - 1) / per_scale;
  std::int64_t words = (count + per_word - 1) / per_word;
  SCALEOUT_GRID_LOOP(w, words) {
    std::uint32_t word = 0;
    for (int e = 0; e < per_word; ++e) {
      std::int64_t i = w * per_word + e;
      if (i >= count) break;
      std::uint32_t code;
      if (bits == 1) {
        code = x[i] >= 0.0f ? 1u : 0u;
      } else {
        float scale = slot[i / per_scale];
        long q = scale > 0.0f ? lroundf(__fdiv_rn(x[i], scale)) : 0;
        q = q < -levels ? -levels : (q > levels ? levels : q);
        code = static_cast<std::uint32_t>(q) & mask;
      }
      word |= code << (e * bits);
    }
    slot[scales + w] = word_of(word);
  }
}

__global__ void decode_kernel(const float* slot, std::int64_t count, std::int64_t per_scale,
                              std::int64_t scales, int bits, float* out) {
  SCALEOUT_GRID_LOOP(i, count) out[i] = decoded(slot, i, per_scale, scales, bits);
}

__global__ void residual_kernel(const float* x, const float* slot, std::int64_t count,
                                std::int64_t per_scale, std::int64_t scales, int bits,
                                float* residual) {
  SCALEOUT_GRID_LOOP(i, count)
  residual[i] = __fsub_rn(x[i], decoded(slot, i, per_scale, scales, bits));
}

__global__ void sum_parts_kernel(const float* first_slot, std::int64_t slot_words, int slots,
                                 std::int64_t count, std::int64_t per_scale, std::int64_t scales,
                                 int bits, const float* residual, float* sum) {
  SCALEOUT_GRID_LOOP(i, count) {
    float s = 0.0f;
    for (int q = 0; q < slots; ++q)
      s = __fadd_rn(s, decoded(first_slot + q * slot_words, i, per_scale, scales, bits));
    sum[i] = residual ? __fadd_rn(s, residual[i]) : s;
  }
}

__global__ void vote_kernel(const float* first_slot, std::int64_t slot_words, int slots,
                            std::int64_t count, std::int64_t scales, float* out) {
  SCALEOUT_GRID_LOOP(i, count) {
    int votes = 0;
    for (int q = 0; q < slots; ++q) {
      std::uint32_t word = bits_of(first_slot[q * slot_words + scales + i / 32]);
      votes += ((word >> (i % 32)) & 1u) ? 1 : -1;
    }
    out[i] = static_cast<float>((votes > 0) - (votes < 0));
  }
}

__global__ void sum_vectors_kernel(const float* const* parts, int n, std::int64_t count,
                                   float* sum) {
  SCALEOUT_GRID_LOOP(i, count) {
    float s = 0.0f;
    for (int w = 0; w < n; ++w) s = __fadd_rn(s, parts[w][i]);
    sum[i] = s;
  }
}

__global__ void fill_matrix_kernel(float* m, const float* grad, std::int64_t count,
                                   std::int64_t padded, bool carried) {
  SCALEOUT_GRID_LOOP(i, padded)
  m[i] = __fadd_rn(i < count ? grad[i] : 0.0f, carried ? m[i] : 0.0f);
}

__global__ void column_norms_kernel(const float* a, std::int64_t rows, int r, float* norms) {
  SCALEOUT_GRID_LOOP(k, r) {
    float sum = 0.0f;
    for (std::int64_t i = 0; i < rows; ++i)
      sum = __fadd_rn(sum, __fmul_rn(a[k * rows + i], a[k * rows + i]));
    norms[k] = sqrtf(sum);
  }
}

__global__ void signs_kernel(const float* a, std::int64_t rows, int r, const float* norms,
                             float tolerance, float* signs) {
  SCALEOUT_GRID_LOOP(k, r) {
    float d = a[k * rows + k];
    signs[k] = fabsf(d) <= __fmul_rn(tolerance, norms[k]) ? 0.0f : (d < 0.0f ? -1.0f : 1.0f);
  }
}

__global__ void scale_columns_kernel(float* a, std::int64_t rows, int r, const float* signs) {
  SCALEOUT_GRID_LOOP(i, rows * r) a[i] = __fmul_rn(a[i], signs[i / rows]);
}

void checked() { SCALEOUT_CUDA_CHECK(cudaGetLastError()); }

}  // namespace

void launch_sum_into(float* x, const float* a, const float* b, std::int64_t count,
                     cudaStream_t stream) {
  if (count <= 0) return;
  sum_into_kernel<<<blocks_for(count), kThreads, 0, stream>>>(x, a, b, count);
  checked();
}

void launch_sample_magnitudes(const float* x, std::int64_t first, std::int64_t stride,
                              std::int64_t size, float* out, cudaStream_t stream) {
  if (size <= 0) return;
  sample_kernel<<<blocks_for(size), kThreads, 0, stream>>>(x, first, stride, size, out);
  checked();
}

void launch_count_candidates(const float* x, std::int64_t count, float threshold,
                             std::int64_t* tile_counts, cudaStream_t stream) {
  auto tiles = static_cast<unsigned>((count + kCompactTile - 1) / kCompactTile);
  if (tiles == 0) return;
  count_kernel<<<tiles, kThreads, 0, stream>>>(x, count, threshold, tile_counts);
  checked();
}

void launch_write_candidates(const float* x, std::int64_t count, float threshold,
                             const std::int64_t* tile_offsets, std::uint32_t* indices,
                             float* values, cudaStream_t stream) {
  auto tiles = static_cast<unsigned>((count + kCompactTile - 1) / kCompactTile);
  if (tiles == 0) return;
  write_kernel<<<tiles, kThreads, 0, stream>>>(x, count, threshold, tile_offsets, indices, values);
  checked();
}

void launch_gather_block(const float* x, const std::uint32_t* idx, std::int64_t k, float* block,
                         cudaStream_t stream) {
  gather_kernel<<<blocks_for(k), kThreads, 0, stream>>>(x, idx, k, block);
  checked();
}

void launch_residual_without(const float* x, const std::uint32_t* idx, std::int64_t k,
                             float* residual, std::int64_t count, cudaStream_t stream) {
  SCALEOUT_CUDA_CHECK(
      cudaMemcpyAsync(residual, x, count * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  zero_at_kernel<<<blocks_for(k), kThreads, 0, stream>>>(residual, idx, k);
  checked();
}

void launch_scatter_add(const float* block, std::int64_t k, float* grad, cudaStream_t stream) {
  scatter_add_kernel<<<blocks_for(k), kThreads, 0, stream>>>(block, k, grad);
  checked();
}

void launch_encode_part(const float* x, std::int64_t count, std::int64_t per_scale, int bits,
                        float* slot, cudaStream_t stream) {
  if (count <= 0) return;
  auto scales = static_cast<unsigned>(scales_of(count, per_scale));
  scale_kernel<<<scales, kThreads, 0, stream>>>(x, count, per_scale, bits, slot);
  checked();
  std::int64_t words = (count + 32 / bits - 1) / (32 / bits);
  pack_kernel<<<blocks_for(words), kThreads, 0, stream>>>(x, count, per_scale, bits, slot);
  checked();
}

void launch_decode_part(const float* slot, std::int64_t count, std::int64_t per_scale, int bits,
                        float* out, cudaStream_t stream) {
  if (count <= 0) return;
  decode_kernel<<<blocks_for(count), kThreads, 0, stream>>>(slot, count, per_scale,
                                                            scales_of(count, per_scale), bits, out);
  checked();
}

void launch_residual_of_part(const float* x, const float* slot, std::int64_t count,
                             std::int64_t per_scale, int bits, float* residual,
                             cudaStream_t stream) {
  if (count <= 0) return;
  residual_kernel<<<blocks_for(count), kThreads, 0, stream>>>(
      x, slot, count, per_scale, scales_of(count, per_scale), bits, residual);
  checked();
}

void launch_sum_parts(const float* first_slot, std::int64_t slot_words, int slots,
                      std::int64_t count, std::int64_t per_scale, int bits, const float* residual,
                      float* sum, cudaStream_t stream) {
  if (count <= 0) return;
  sum_parts_kernel<<<blocks_for(count), kThreads, 0, stream>>>(
      first_slot, slot_words, slots, count, per_scale, scales_of(count, per_scale), bits, residual,
      sum);
  checked();
}

void launch_vote_signs(const float* first_slot, std::int64_t slot_words, int slots,
                       std::int64_t count, std::int64_t per_scale, float* out,
                       cudaStream_t stream) {
  if (count <= 0) return;
  vote_kernel<<<blocks_for(count), kThreads, 0, stream>>>(first_slot, slot_words, slots, count,
                                                          scales_of(count, per_scale), out);
  checked();
}

void launch_sum_vectors(const float* const* parts, int n, std::int64_t count, float* sum,
                        cudaStream_t stream) {
  if (count <= 0) return;
  sum_vectors_kernel<<<blocks_for(count), kThreads, 0, stream>>>(parts, n, count, sum);
  checked();
}

void launch_fill_matrix(float* m, const float* grad, std::int64_t count, std::int64_t padded,
                        bool carried, cudaStream_t stream) {
  fill_matrix_kernel<<<blocks_for(padded), kThreads, 0, stream>>>(m, grad, count, padded, carried);
  checked();
}

void launch_column_norms(const float* a, std::int64_t rows, int r, float* norms,
                         cudaStream_t stream) {
  column_norms_kernel<<<1, kThreads, 0, stream>>>(a, rows, r, norms);
  checked();
}

void launch_diagonal_signs(const float* a, std::int64_t rows, int r, const float* norms,
                           float tolerance, float* signs, cudaStream_t stream) {
  signs_kernel<<<1, kThreads, 0, stream>>>(a, rows, r, norms, tolerance, signs);
  checked();
}

void launch_scale_columns(float* a, std::int64_t rows, int r, const float* signs,
                          cudaStream_t stream) {
  scale_columns_kernel<<<blocks_for(rows * r), kThreads, 0, stream>>>(a, rows, r, signs);
  checked();
}

}  // namespace scaleout::exec
