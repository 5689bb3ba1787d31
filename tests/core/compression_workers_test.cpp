// Compression across several workers, against numbers worked out by hand: the decoded sum of
// top-k blocks that share an index, the residuals each worker keeps, and the owner's re-encoding
// of a quantized part with its own error feedback. The expected values are literals (the
// arithmetic is in the comments), never the output of core/compression_reference.hpp, which runs
// the same codec code.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/compression_codec.hpp"

namespace scaleout::core {
namespace {

using Floats = std::vector<float>;

Compression kind(CompressionKind k, double density = 0.01, double chunk = 1 << 20) {
  Compression c;
  c.kind = k;
  c.density = density;
  c.chunk = chunk;
  return c;
}

// One step of the ring exchange among codec.workers() workers, the words moved by hand as the
// fabric moves them: each worker encodes its gradient into its own scratch; quantized kinds send
// every worker's copy of a part to the part's owner, which reduces it; the all-gather leaves every
// owner's segment on every worker; the gathered area is decoded once (every worker decodes the
// same words).
Floats ring_step(const BucketCodec& codec, const std::vector<Floats>& grads,
                 std::vector<CodecState>& states) {
  int n = codec.workers();
  std::int64_t words = codec.scratch_words();
  std::vector<Floats> scratch(n, Floats(words, 0.0f));
  for (int r = 0; r < n; ++r) codec.encode(r, 0, grads[r].data(), scratch[r].data(), states[r]);
  Floats gathered(words, 0.0f);
  Span area = codec.gather_area();
  std::int64_t segment = area.count / n;
  for (int owner = 0; owner < n; ++owner) {
    int s = codec.segment_of(owner);
    if (!codec.sparse()) {
      for (int sender = 0; sender < n; ++sender) {
        if (sender == owner) continue;
        Span from = codec.send_slot(s), to = codec.recv_slot(sender);
        for (std::int64_t i = 0; i < from.count; ++i)
          scratch[owner][to.begin + i] = scratch[sender][from.begin + i];
      }
      codec.owner_reduce(owner, scratch[owner].data(), states[owner]);
    }
    std::int64_t at = area.begin + s * segment;
    for (std::int64_t i = 0; i < segment; ++i) gathered[at + i] = scratch[owner][at + i];
  }
  Floats out(codec.count());
  codec.decode(gathered.data(), out.data());
  return out;
}

// Top-k, k = 2 of 4, two workers whose selections share index 0.
//   worker 0: {4, -1, 0.5, 3}  keeps 0 (4) and 3 (3);   residual {0, -1, 0.5, 0}
//   worker 1: {-2, 0.25, 5, 1} keeps 2 (5) and 0 (-2);  residual {0, 0.25, 0, 1}
//   sum: index 0 4 + -2 = 2, index 1 0, index 2 5, index 3 3.
// Next step, zero gradients: each sends its residual's top 2.
//   worker 0: {0, -1, 0.5, 0} keeps 1 (-1) and 2 (0.5); worker 1: {0, 0.25, 0, 1} keeps 3 and 1
//   sum: index 1 -1 + 0.25 = -0.75, index 2 0.5, index 3 1; nothing is left behind.
TEST(CompressionWorkers, TopKAddsBothWorkersAtASharedIndexAndEachKeepsItsOwnResidual) {
  BucketCodec codec(kind(CompressionKind::kTopk, 0.5), 2, 4);
  ASSERT_EQ(codec.k(), 2);
  std::vector<CodecState> st(2);
  Floats out = ring_step(codec, {{4, -1, 0.5f, 3}, {-2, 0.25f, 5, 1}}, st);
  EXPECT_EQ(out, (Floats{2, 0, 5, 3}));
  EXPECT_EQ(st[0].residual, (Floats{0, -1, 0.5f, 0}));
  EXPECT_EQ(st[1].residual, (Floats{0, 0.25f, 0, 1}));
  out = ring_step(codec, {{0, 0, 0, 0}, {0, 0, 0, 0}}, st);
  EXPECT_EQ(out, (Floats{0, -0.75f, 0.5f, 1}));
  EXPECT_EQ(st[0].residual, (Floats{0, 0, 0, 0}));
  EXPECT_EQ(st[1].residual, (Floats{0, 0, 0, 0}));
}

// Random-k, k = 3 of 4, two workers: whatever the draws, they share at least two indices
// (3 + 3 > 4), and nothing is lost: decoded + both residuals = the summed gradients,
// {1 + 10, 2 + 20, 3 + 30, 4 + 40} = {11, 22, 33, 44}. Each worker holds back exactly one element,
// its own (all elements are non-zero).
TEST(CompressionWorkers, RandomKSumsEveryWorkersDrawAndKeepsWhatWasNotSent) {
  BucketCodec codec(kind(CompressionKind::kRandomk, 0.75), 2, 4);
  ASSERT_EQ(codec.k(), 3);
  std::vector<CodecState> st(2);
  Floats g0{1, 2, 3, 4}, g1{10, 20, 30, 40};
  Floats out = ring_step(codec, {g0, g1}, st);
  Floats total(4);
  for (int i = 0; i < 4; ++i) total[i] = out[i] + st[0].residual[i] + st[1].residual[i];
  EXPECT_EQ(total, (Floats{11, 22, 33, 44}));
  for (int w = 0; w < 2; ++w) {
    const Floats& g = w == 0 ? g0 : g1;
    int held = 0;
    for (int i = 0; i < 4; ++i) {
      if (st[w].residual[i] == 0) continue;
      ++held;
      EXPECT_EQ(st[w].residual[i], g[i]) << w << " " << i;
    }
    EXPECT_EQ(held, 1) << w;
  }
}

// 1-bit, two workers, 4 elements: parts {0, 1} and {2, 3}, one scale (the mean |x|) per part
// (chunk 8 bytes = 2 elements). Worker 1 owns part 0, worker 0 part 1 (segment_of: rank + 1
// mod 2).
// Step 1:
//   worker 0 {3, -1, 2, 2}: part 0 scale 2 -> {2, -2}, residual {1, 1}; part 1 -> {2, 2}, {0, 0}
//   worker 1 {1, 1, -4, 0}: part 0 scale 1 -> {1, 1}, {0, 0}; part 1 scale 2 -> {-2, 2} (0 is
//     sent as +), residual {-2, -2}
//   owner of part 0: sum {2 + 1, -2 + 1} = {3, -1}, scale 2 -> {2, -2}, owner residual {1, 1}
//   owner of part 1: sum {2 - 2, 2 + 2} = {0, 4}, scale 2 -> {2, 2}, owner residual {-2, 2}
// Step 2, zero gradients (each worker encodes its residual):
//   worker 0 {1, 1, 0, 0}: part 0 scale 1 -> {1, 1}; part 1 scale 0 -> {0, 0}; residual 0
//   worker 1 {0, 0, -2, -2}: part 0 -> {0, 0}; part 1 scale 2 -> {-2, -2}; residual 0
//   owner of part 0: {1 + 0, 1 + 0} + {1, 1} = {2, 2}, scale 2 -> {2, 2}, owner residual {0, 0}
//   owner of part 1: {0 - 2, 0 - 2} + {-2, 2} = {-4, 0}, scale 2 -> {-2, 2}, owner residual
//     {-2, -2}
// (Without the owners' residuals step 2 would give {1, 1, -2, -2}.)
TEST(CompressionWorkers, OneBitOwnerSumsThePartsAndCarriesItsOwnResidual) {
  BucketCodec codec(kind(CompressionKind::kOnebit, 0, 8), 2, 4);
  ASSERT_EQ(codec.segment_of(1), 0);
  std::vector<CodecState> st(2);
  Floats out = ring_step(codec, {{3, -1, 2, 2}, {1, 1, -4, 0}}, st);
  EXPECT_EQ(out, (Floats{2, -2, 2, 2}));
  EXPECT_EQ(st[0].residual, (Floats{1, 1, 0, 0}));
  EXPECT_EQ(st[1].residual, (Floats{0, 0, -2, -2}));
  EXPECT_EQ(st[1].owner_residual, (Floats{1, 1}));   // part 0
  EXPECT_EQ(st[0].owner_residual, (Floats{-2, 2}));  // part 1
  out = ring_step(codec, {{0, 0, 0, 0}, {0, 0, 0, 0}}, st);
  EXPECT_EQ(out, (Floats{2, 2, -2, 2}));
  EXPECT_EQ(st[0].residual, (Floats{0, 0, 0, 0}));
  EXPECT_EQ(st[1].residual, (Floats{0, 0, 0, 0}));
  EXPECT_EQ(st[1].owner_residual, (Floats{0, 0}));
  EXPECT_EQ(st[0].owner_residual, (Floats{-2, -2}));
}

// int8, two workers, 4 elements, one scale (max |x| / 127) per part of 2; codes round to nearest,
// halves away from zero.
//   worker 0 {127, 2.5, -127, 0.4}: part 0 scale 1, codes {127, 3} -> {127, 3}, residual
//     {0, -0.5}; part 1 scale 1, codes {-127, 0} -> {-127, 0}, residual {0, 0.4}
//   worker 1 {127, 1.5, 63.5, -1.5}: part 0 scale 1, codes {127, 2}, residual {0, -0.5};
//     part 1 scale 63.5 / 127 = 0.5, codes {127, -3} -> {63.5, -1.5}, residual {0, 0}
//   owner of part 0 (worker 1): sum {254, 5}, scale 2, codes {127, round(2.5) = 3} -> {254, 6},
//     owner residual {0, 5 - 6 = -1}
//   owner of part 1 (worker 0): sum {-127 + 63.5, 0 - 1.5} = {-63.5, -1.5}, scale 0.5, codes
//     {-127, -3}: exact, owner residual {0, 0}
TEST(CompressionWorkers, Int8OwnerRoundsTheSumToItsScaleAndKeepsTheRoundingError) {
  BucketCodec codec(kind(CompressionKind::kInt8, 0, 8), 2, 4);
  std::vector<CodecState> st(2);
  Floats out = ring_step(codec, {{127, 2.5f, -127, 0.4f}, {127, 1.5f, 63.5f, -1.5f}}, st);
  EXPECT_EQ(out, (Floats{254, 6, -63.5f, -1.5f}));
  EXPECT_EQ(st[0].residual, (Floats{0, -0.5f, 0, 0.4f}));
  EXPECT_EQ(st[1].residual, (Floats{0, -0.5f, 0, 0}));
  EXPECT_EQ(st[1].owner_residual, (Floats{0, -1}));
  EXPECT_EQ(st[0].owner_residual, (Floats{0, 0}));
}

}  // namespace
}  // namespace scaleout::core
