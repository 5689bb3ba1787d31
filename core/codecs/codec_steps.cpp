#include "core/codecs/codec_steps.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/codecs/compression.hpp"

namespace scaleout::core {

namespace {

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<std::uint32_t> random_k_indices(int rank, std::uint64_t step, std::uint64_t bucket,
                                            std::int64_t count, std::int64_t k) {
  std::uint64_t seed = (static_cast<std::uint64_t>(rank) << 40) ^ (step << 20) ^ bucket;
  std::vector<std::uint32_t> idx(count);
  std::iota(idx.begin(), idx.end(), 0u);
  for (std::int64_t i = 0; i < k; ++i) {
    auto j = i + static_cast<std::int64_t>(splitmix(seed) % static_cast<std::uint64_t>(count - i));
    std::swap(idx[i], idx[j]);
  }
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

TopkSample topk_sample(std::int64_t count) {
  constexpr std::int64_t kLeast = 4096;
  TopkSample s;
  std::int64_t wanted = std::max(kLeast, count / 100);
  s.stride = std::max<std::int64_t>(1, count / wanted);
  s.size = count <= 0 ? 0 : (count - s.first() + s.stride - 1) / s.stride;
  return s;
}

float sampled_threshold(std::vector<float>& magnitudes, std::int64_t k, std::int64_t count) {
  auto size = static_cast<std::int64_t>(magnitudes.size());
  if (size == 0) return 0.0f;
  double share = static_cast<double>(k) / static_cast<double>(count);
  std::int64_t rank = std::min(size, static_cast<std::int64_t>(std::ceil(2 * share * size)) + 8);
  std::nth_element(magnitudes.begin(), magnitudes.begin() + (rank - 1), magnitudes.end(),
                   std::greater<float>());
  return magnitudes[rank - 1];
}

std::vector<std::int64_t> largest_k(const std::vector<float>& values, std::int64_t k) {
  std::vector<std::int64_t> pos(values.size());
  std::iota(pos.begin(), pos.end(), 0);
  auto larger = [&values](std::int64_t a, std::int64_t b) {
    float fa = std::fabs(values[a]), fb = std::fabs(values[b]);
    return fa > fb || (fa == fb && a < b);
  };
  std::nth_element(pos.begin(), pos.begin() + (k - 1), pos.end(), larger);
  pos.resize(k);
  std::sort(pos.begin(), pos.end());
  return pos;
}

std::vector<std::uint32_t> top_k_indices(const float* x, std::int64_t count, std::int64_t k) {
  TopkSample sample = topk_sample(count);
  std::vector<float> magnitudes;
  magnitudes.reserve(sample.size);
  for (std::int64_t i = sample.first(); i < count; i += sample.stride)
    magnitudes.push_back(std::fabs(x[i]));
  float threshold = sampled_threshold(magnitudes, k, count);
  std::vector<std::uint32_t> candidates;
  std::vector<float> values;
  for (std::int64_t i = 0; i < count; ++i)
    if (std::fabs(x[i]) >= threshold) {
      candidates.push_back(static_cast<std::uint32_t>(i));
      values.push_back(x[i]);
    }
  if (static_cast<std::int64_t>(candidates.size()) < k) {  // the sample missed: all are candidates
    candidates.resize(count);
    std::iota(candidates.begin(), candidates.end(), 0u);
    values.assign(x, x + count);
  }
  std::vector<std::uint32_t> chosen;
  chosen.reserve(k);
  for (std::int64_t p : largest_k(values, k)) chosen.push_back(candidates[p]);
  return chosen;
}

float chunk_scale(const float* x, std::int64_t count, int bits) {
  bool onebit = bits == 1;
  float lanes[kScaleLanes] = {};
  auto fold = [onebit](float a, float b) { return onebit ? a + b : std::max(a, b); };
  for (std::int64_t i = 0; i < count; ++i)
    lanes[i % kScaleLanes] = fold(lanes[i % kScaleLanes], std::fabs(x[i]));
  for (int s = kScaleLanes / 2; s > 0; s /= 2)
    for (int t = 0; t < s; ++t) lanes[t] = fold(lanes[t], lanes[t + s]);
  return onebit ? lanes[0] / static_cast<float>(count)
                : lanes[0] / static_cast<float>(quantize_levels(bits));
}

}  // namespace scaleout::core
