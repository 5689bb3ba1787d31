// The compressors' steps that a GPU codec (exec/cuda/device_codecs.hpp) shares with the host's
// (core/codecs/compression_codec.hpp), written so that both compute the same bits.
//
// Top-k selects as Deep Gradient Compression does (Lin et al. 2018): a threshold estimated from a
// sample of the magnitudes, the elements at or above it kept as candidates, then an exact
// selection among the candidates. The sample is every `stride`-th element (starting at
// stride / 2), about 1% of the bucket and at least 4,096 elements (all of a smaller bucket); the
// threshold is the sample's magnitude at twice k's share of it, plus 8. When the candidates
// number fewer than k the selection runs over the whole bucket, so the result is always the exact
// top-k: the k largest |x|, ties to the lower index.
//
// A quantized chunk's scale is summed (onebit's mean |x|) or maximized (int8's max |x|) in the
// order a GPU block of kScaleLanes threads takes: lane t folds elements t, t + kScaleLanes, ...
// in turn, then the lanes are folded pairwise, lane t with lane t + s for s = kScaleLanes / 2,
// ..., 1.
#pragma once

#include <cstdint>
#include <vector>

namespace scaleout::core {

struct TopkSample {
  std::int64_t stride = 1;
  std::int64_t size = 0;
  std::int64_t first() const { return stride / 2; }
};
TopkSample topk_sample(std::int64_t count);

// The candidates' threshold from the sampled magnitudes (reordered in place).
float sampled_threshold(std::vector<float>& magnitudes, std::int64_t k, std::int64_t count);

// Of candidates in ascending index order with these values, the positions of the k with the
// largest |value| (ties: the lower position), ascending. REQUIRES: k <= values.size().
std::vector<std::int64_t> largest_k(const std::vector<float>& values, std::int64_t k);

// The exact top-k of x[0, count), by the steps above: indices ascending.
std::vector<std::uint32_t> top_k_indices(const float* x, std::int64_t count, std::int64_t k);

// Random-k's k distinct indices for worker `rank`'s `step`-th encoding of `bucket`, drawn by a
// partial Fisher-Yates shuffle from a seed of the three, ascending.
std::vector<std::uint32_t> random_k_indices(int rank, std::uint64_t step, std::uint64_t bucket,
                                            std::int64_t count, std::int64_t k);

constexpr int kScaleLanes = 256;
// `bits` 2 to 8: max |x| / (2^(bits-1) - 1) (int8: / 127); 1 (onebit): (sum of |x|) / count,
// folded in the lane order above.
float chunk_scale(const float* x, std::int64_t count, int bits);

}  // namespace scaleout::core
