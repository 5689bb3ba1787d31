// The selection and scale steps the host and GPU codecs share (core/codecs/codec_steps.hpp).
#include "core/codecs/codec_steps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace scaleout::core {
namespace {

// The top-k by definition: sort every index by (|x| descending, index ascending).
std::vector<std::uint32_t> brute_top_k(const std::vector<float>& x, std::int64_t k) {
  std::vector<std::uint32_t> idx(x.size());
  std::iota(idx.begin(), idx.end(), 0u);
  std::stable_sort(idx.begin(), idx.end(), [&x](std::uint32_t a, std::uint32_t b) {
    return std::fabs(x[a]) > std::fabs(x[b]);
  });
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

TEST(CodecSteps, SampledTopKIsTheExactTopKOnNormalGradients) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(1'000'000);
  for (float& v : x) v = normal(rng);
  for (std::int64_t k : {1, 1000, 10000})
    EXPECT_EQ(top_k_indices(x.data(), std::ssize(x), k), brute_top_k(x, k)) << "k " << k;
}

TEST(CodecSteps, TiesGoToTheLowerIndex) {
  std::vector<float> x(50'000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;  // -3..3
  EXPECT_EQ(top_k_indices(x.data(), std::ssize(x), 5000), brute_top_k(x, 5000));
  std::vector<float> few = {0.5f, -2.0f, 2.0f, 1.0f, -2.0f};
  EXPECT_EQ(top_k_indices(few.data(), 5, 2), (std::vector<std::uint32_t>{1, 2}));
}

// Every sampled element large and the rest small: the sample's threshold keeps 10,000 candidates
// for k = 20,000, and the selection falls back to the whole bucket.
TEST(CodecSteps, ASampleThatMissesStillGivesTheExactTopK) {
  const std::int64_t count = 1'000'000;
  TopkSample sample = topk_sample(count);
  ASSERT_EQ(sample.stride, 100);
  std::vector<float> x(count);
  for (std::int64_t i = 0; i < count; ++i)
    x[i] = (i % sample.stride == sample.first()) ? 1000.0f : static_cast<float>(i % 13) * 0.01f;
  EXPECT_EQ(top_k_indices(x.data(), count, 20000), brute_top_k(x, 20000));
}

TEST(CodecSteps, TheSampleIsAboutOnePercentAndAtLeast4096) {
  EXPECT_EQ(topk_sample(100).stride, 1);
  EXPECT_EQ(topk_sample(100).size, 100);
  EXPECT_EQ(topk_sample(1'000'000).size, 10'000);  // from 50, every 100th
  EXPECT_EQ(topk_sample(100'000).stride, 24);      // 100,000 / 4,096
}

// 2^24 then 256 ones. Summed in turn each one is lost to rounding (2^24 + 1 rounds to 2^24); in
// the lanes' order one is lost in lane 0 and the other 255 meet as even sums, which 2^24 holds.
TEST(CodecSteps, OnebitScaleFoldsInTheGpuBlocksOrder) {
  std::vector<float> x(257, 1.0f);
  x[0] = 16777216.0f;
  EXPECT_EQ(chunk_scale(x.data(), 257, 1), (16777216.0f + 254.0f) / 257.0f);
  EXPECT_EQ(chunk_scale(x.data(), 257, 8), 16777216.0f / 127.0f);
  EXPECT_EQ(chunk_scale(x.data(), 257, 4), 16777216.0f / 7.0f);
  EXPECT_EQ(chunk_scale(x.data(), 257, 2), 16777216.0f);
  std::vector<float> mixed = {-3.0f, 1.0f, 2.0f};
  EXPECT_EQ(chunk_scale(mixed.data(), 3, 1), 2.0f);
  EXPECT_EQ(chunk_scale(mixed.data(), 3, 8), 3.0f / 127.0f);
}

}  // namespace
}  // namespace scaleout::core
