// The device work of the GPU codecs (exec/cuda/device_codecs.hpp): each launcher runs one step of
// a host codec (core/codecs/compression_codec.hpp, core/codecs/codec_steps.hpp) on device memory,
// in the same order of float operations (no fused multiply-adds), so that the two compute the same
// bits. All launch on `stream` and return at once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace scaleout::exec {

// x[i] = a[i] + b[i] (b may be null: a copy).
void launch_sum_into(float* x, const float* a, const float* b, std::int64_t count,
                     cudaStream_t stream);
// out[j] = |x[first + j * stride]| for j < size.
void launch_sample_magnitudes(const float* x, std::int64_t first, std::int64_t stride,
                              std::int64_t size, float* out, cudaStream_t stream);

// Compaction of the elements with |x| >= threshold, in index order, in tiles of kCompactTile:
// the count of each tile, then (given each tile's first output position) the indices and values.
constexpr int kCompactTile = 4096;
void launch_count_candidates(const float* x, std::int64_t count, float threshold,
                             std::int64_t* tile_counts, cudaStream_t stream);
void launch_write_candidates(const float* x, std::int64_t count, float threshold,
                             const std::int64_t* tile_offsets, std::uint32_t* indices,
                             float* values, cudaStream_t stream);

// A sparse block: block[j] = the bits of idx[j], block[k + j] = x[idx[j]].
void launch_gather_block(const float* x, const std::uint32_t* idx, std::int64_t k, float* block,
                         cudaStream_t stream);
// residual = x with the chosen indices zeroed.
void launch_residual_without(const float* x, const std::uint32_t* idx, std::int64_t k,
                             float* residual, std::int64_t count, cudaStream_t stream);
// grad[block index j] += block value j, one block's k pairs (distinct indices).
void launch_scatter_add(const float* block, std::int64_t k, float* grad, cudaStream_t stream);

// The quantized encoding of `count` elements into a slot: one scale per `per_scale` elements
// (`bits` 1: mean |x|; 2 to 8: max |x| / (2^(bits-1) - 1), int8's 127), then the codes packed
// 32 / bits a word.
void launch_encode_part(const float* x, std::int64_t count, std::int64_t per_scale, int bits,
                        float* slot, cudaStream_t stream);
// out[i] = decode(slot, i); residual[i] = x[i] - decode(slot, i) (the error feedback an encoding
// leaves).
void launch_decode_part(const float* slot, std::int64_t count, std::int64_t per_scale, int bits,
                        float* out, cudaStream_t stream);
void launch_residual_of_part(const float* x, const float* slot, std::int64_t count,
                             std::int64_t per_scale, int bits, float* residual,
                             cudaStream_t stream);
// sum[i] = 0 + decode(slot 0, i) + ... + decode(slot n-1, i), slots `slot_words` apart from
// `first_slot`; then + residual[i] when `residual` is given.
void launch_sum_parts(const float* first_slot, std::int64_t slot_words, int slots,
                      std::int64_t count, std::int64_t per_scale, int bits, const float* residual,
                      float* sum, cudaStream_t stream);

// out[i] = +1, -1 or 0 (a tie): the majority of the signs element i has in the `slots` 1-bit
// slots `slot_words` apart from `first_slot` (signSGD's vote, as core::BucketCodec::vote counts).
void launch_vote_signs(const float* first_slot, std::int64_t slot_words, int slots,
                       std::int64_t count, std::int64_t per_scale, float* out, cudaStream_t stream);

// sum[i] = 0 + part(0)[i] + ... + part(n-1)[i]: PowerSGD's owner sum, part w at
// `parts[w]` (a device array of n pointers).
void launch_sum_vectors(const float* const* parts, int n, std::int64_t count, float* sum,
                        cudaStream_t stream);
// m[i] = (i < count ? grad[i] : 0) + (carried ? m[i] : 0) for i < padded.
void launch_fill_matrix(float* m, const float* grad, std::int64_t count, std::int64_t padded,
                        bool carried, cudaStream_t stream);
// norms[k] = the norm of column k of the col-major rows x r matrix `a`.
void launch_column_norms(const float* a, std::int64_t rows, int r, float* norms,
                         cudaStream_t stream);
// After a QR factorization of `a` (R in its upper triangle): signs[k] = the sign of R[k][k], or 0
// where |R[k][k]| <= tolerance x norms[k] (the column lay in the span of those before it); then
// column k of `a` multiplied by signs[k].
void launch_diagonal_signs(const float* a, std::int64_t rows, int r, const float* norms,
                           float tolerance, float* signs, cudaStream_t stream);
void launch_scale_columns(float* a, std::int64_t rows, int r, const float* signs,
                          cudaStream_t stream);

}  // namespace scaleout::exec
