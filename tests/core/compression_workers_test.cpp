// Compression across several workers, against numbers worked out by hand: the decoded sum of
// top-k blocks that share an index, the residuals each worker keeps, the owner's re-encoding of
// a quantized part with its own error feedback, PowerSGD's sums, and a parameter server shard's
// combination of the pushes. The expected values are literals (the arithmetic is in the comments),
// never the output of core/codecs/compression_reference.hpp, which runs the same codec code.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "core/codecs/compression_codec.hpp"
#include "core/codecs/powersgd_codec.hpp"
#include "core/codecs/ps_codec.hpp"
#include "tests/core/compression_kind.hpp"

namespace scaleout::core {
namespace {

using Floats = std::vector<float>;

using testing::kind;

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

// PowerSGD, rank 1, two workers, 4 elements as a 2 x 2 matrix (row-major). The workers' matrices
// are of rank 2, their sum S of rank 1:
//   M0 = [3 1; 0 2], M1 = [0 -1; 4 -2], S = [3 0; 4 0] = (3, 4) (1, 0)^T
// Whatever the start Q (q), the summed P = S q is along (3, 4): P^ = +-(0.6, 0.8), the summed
// Q = S^T P^ = +-(5, 0), and P^ Q^T = S. Each worker keeps what its own Q_w = M_w^T P^ missed,
// M_w - P^ P^T M_w:
//   P^T M0 = 0.6 (3, 1) + 0.8 (0, 2) = (1.8, 2.2); P^ (1.8, 2.2) = [1.08 1.32; 1.44 1.76]
//   M0 - that = [1.92 -0.32; -1.44 0.24]
//   P^T M1 = 0.6 (0, -1) + 0.8 (4, -2) = (3.2, -2.2); P^ (3.2, -2.2) = [1.92 -1.32; 2.56 -1.76]
//   M1 - that = [-1.92 0.32; 1.44 -0.24]
TEST(CompressionWorkers, PowerSgdSumsBothWorkersFactorsAndEachKeepsItsOwnRemainder) {
  Compression c = kind(CompressionKind::kPowersgd);
  c.rank = 1;
  LowRankCodec codec(c, 2, 4);
  ASSERT_EQ(codec.shape().rows, 2);
  ASSERT_EQ(codec.shape().cols, 2);
  std::vector<Floats> grads{{3, 1, 0, 2}, {0, -1, 4, -2}};
  std::vector<Floats> scratch(2, Floats(codec.scratch_words(), 0.0f));
  std::vector<LowRankState> st(2);
  // Each part to its owner, the owner's sum, the sums to the other worker.
  auto all_reduce = [&](std::int64_t slot) {
    for (int owner = 0; owner < 2; ++owner) {
      int other = 1 - owner;
      Span from = codec.own_part(slot, codec.segment_of(owner)), to = codec.recv_slot(slot, other);
      for (std::int64_t i = 0; i < slot; ++i)
        scratch[owner][to.begin + i] = scratch[other][from.begin + i];
      codec.owner_sum(owner, slot, scratch[owner].data());
    }
    for (int owner = 0; owner < 2; ++owner) {
      std::int64_t at = codec.sum_area(slot).begin + codec.segment_of(owner) * slot;
      for (std::int64_t i = 0; i < slot; ++i) scratch[1 - owner][at + i] = scratch[owner][at + i];
    }
  };
  for (int w = 0; w < 2; ++w) codec.encode_p(7, grads[w].data(), scratch[w].data(), st[w]);
  all_reduce(codec.p_slot());
  for (int w = 0; w < 2; ++w) codec.encode_q(scratch[w].data(), st[w]);
  all_reduce(codec.q_slot());
  Floats out0(4), out1(4);
  codec.decode(scratch[0].data(), out0.data(), st[0]);
  codec.decode(scratch[1].data(), out1.data(), st[1]);
  Floats sum{3, 0, 4, 0};
  Floats kept0{1.92f, -0.32f, -1.44f, 0.24f}, kept1{-1.92f, 0.32f, 1.44f, -0.24f};
  for (int e = 0; e < 4; ++e) {
    EXPECT_NEAR(out0[e], sum[e], 1e-5) << e;
    EXPECT_NEAR(out1[e], sum[e], 1e-5) << e;
    EXPECT_NEAR(st[0].m[e], kept0[e], 1e-5) << e;
    EXPECT_NEAR(st[1].m[e], kept1[e], 1e-5) << e;
  }
}

// A parameter server shard of 4 elements, top-k with k = 2, three workers:
//   worker 0 {4, -1, 0.5, 3}  pushes (0, 4), (3, 3)
//   worker 1 {-2, 0.25, 5, 1} pushes (0, -2), (2, 5)
//   worker 2 {1, 6, 0, -7}    pushes (1, 6), (3, -7)
//   the shard: index 0 4 - 2 = 2, index 1 6, index 2 5, index 3 3 - 7 = -4, pulled dense.
TEST(CompressionWorkers, PsShardAddsEveryWorkersTopKPush) {
  PsShardCodec codec(kind(CompressionKind::kTopk, 0.5), 3, 4);
  ASSERT_EQ(codec.push_words(), 4);
  std::vector<Floats> grads{{4, -1, 0.5f, 3}, {-2, 0.25f, 5, 1}, {1, 6, 0, -7}};
  std::vector<CodecState> st(3);
  Floats pushes(codec.server_words(), 0.0f);
  for (int w = 0; w < 3; ++w) codec.encode(w, 0, grads[w].data(), pushes.data() + w * 4, st[w]);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(pushes[8]), 1u);  // worker 2's first index
  EXPECT_EQ(pushes[8 + 2], 6);                             // and its value
  CodecState server;
  Floats shard(4, 99.0f);  // the reduce overwrites it
  codec.reduce(pushes.data(), shard.data(), server);
  EXPECT_EQ(shard, (Floats{2, 6, 5, -4}));
  EXPECT_EQ(st[0].residual, (Floats{0, -1, 0.5f, 0}));
  EXPECT_EQ(st[1].residual, (Floats{0, 0.25f, 0, 1}));
  EXPECT_EQ(st[2].residual, (Floats{1, 0, 0, 0}));
}

// A parameter server shard of 4 elements, 1-bit with a scale per 2 elements, three workers; the
// server re-encodes the sum with its own residual and every worker pulls and decodes the result.
// Step 1:
//   worker 0 {3, -1, 2, 2}:   {2, -2, 2, 2},  residual {1, 1, 0, 0}
//   worker 1 {1, 1, -4, 0}:   {1, 1, -2, 2},  residual {0, 0, -2, -2}
//   worker 2 {-2, -2, 1, -3}: {-2, -2, 2, -2}, residual {0, 0, -1, -1}
//   server sum {2 + 1 - 2, -2 + 1 - 2, 2 - 2 + 2, 2 + 2 - 2} = {1, -3, 2, 2}
//   encoded: scales 2 and 2 -> {2, -2, 2, 2}, server residual {-1, -1, 0, 0}
// Step 2, zero gradients (the workers push their residuals):
//   worker 0 {1, 1, 0, 0} -> {1, 1, 0, 0}; worker 1 {0, 0, -2, -2} -> {0, 0, -2, -2};
//   worker 2 {0, 0, -1, -1} -> {0, 0, -1, -1}; all residuals 0
//   server: {1, 1, -3, -3} + {-1, -1, 0, 0} = {0, 0, -3, -3}, scales 0 and 3 -> {0, 0, -3, -3},
//   server residual 0. (Without the server's residual: {1, 1, -3, -3}.)
TEST(CompressionWorkers, PsShardOneBitSumsThePushesAndCarriesTheServerResidual) {
  PsShardCodec codec(kind(CompressionKind::kOnebit, 0, 8), 3, 4);
  ASSERT_EQ(codec.push_words(), 3);  // 2 scales, 1 word of signs
  std::vector<CodecState> st(3);
  CodecState server;
  auto step = [&](const std::vector<Floats>& grads) {
    Floats pushes(codec.server_words(), 0.0f);
    std::int64_t words = codec.push_words();
    for (int w = 0; w < 3; ++w)
      codec.encode(w, 0, grads[w].data(), pushes.data() + w * words, st[w]);
    Floats shard(4);
    codec.reduce(pushes.data(), shard.data(), server);
    Floats pulled(pushes.begin() + 3 * words, pushes.end());
    Floats out(4, 99.0f);
    codec.decode(pulled.data(), out.data(), st[0]);
    return out;
  };
  EXPECT_EQ(step({{3, -1, 2, 2}, {1, 1, -4, 0}, {-2, -2, 1, -3}}), (Floats{2, -2, 2, 2}));
  EXPECT_EQ(st[0].residual, (Floats{1, 1, 0, 0}));
  EXPECT_EQ(st[1].residual, (Floats{0, 0, -2, -2}));
  EXPECT_EQ(st[2].residual, (Floats{0, 0, -1, -1}));
  EXPECT_EQ(server.residual, (Floats{-1, -1, 0, 0}));
  EXPECT_EQ(step({{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}), (Floats{0, 0, -3, -3}));
  EXPECT_EQ(server.residual, (Floats{0, 0, 0, 0}));
  EXPECT_EQ(st[2].residual, (Floats{0, 0, 0, 0}));
}

// signSGD's vote over a PS shard of 4 elements (1-bit codes, a scale per 2 elements):
//   worker 0 {3, -1, 2, -2}: + - + -      worker 1 {1, 1, -4, 5}:  + + - +
//   worker 2 {-2, -2, 1, -3}: - - + -     worker 3 {1, -1, -1, 1}: + - - +
// Three workers vote {+1, -1, +1, -1}, pulled as signs; four vote {+1, -1, 0, 0} (two ties),
// pulled as 2-bit codes, which carry the 0 exactly.
TEST(CompressionWorkers, PsShardMajorityVoteCountsSignsAndSendsTiesAsZero) {
  Compression c = kind(CompressionKind::kOnebit, 0, 8);
  c.majority_vote = true;
  c.error_feedback = false;
  std::vector<Floats> grads{{3, -1, 2, -2}, {1, 1, -4, 5}, {-2, -2, 1, -3}, {1, -1, -1, 1}};
  auto vote = [&](int workers) {
    PsShardCodec codec(c, workers, 4);
    std::vector<CodecState> st(workers);
    Floats pushes(codec.server_words(), 0.0f);
    for (int w = 0; w < workers; ++w)
      codec.encode(w, 0, grads[w].data(), pushes.data() + w * codec.push_words(), st[w]);
    CodecState server;
    Floats shard(4);
    codec.reduce(pushes.data(), shard.data(), server);
    Floats out(4, 99.0f);
    codec.decode(pushes.data() + workers * codec.push_words(), out.data(), st[0]);
    EXPECT_TRUE(server.residual.empty() && st[0].residual.empty());  // no error feedback
    return out;
  };
  EXPECT_EQ(vote(3), (Floats{1, -1, 1, -1}));
  EXPECT_EQ(vote(4), (Floats{1, -1, 0, 0}));
  // 64 elements: 32 scales and 2 words of signs pushed; pulled the same (odd) or 4 words of
  // 2-bit codes (even).
  EXPECT_EQ(PsShardCodec(c, 3, 64).push_words(), 34);
  EXPECT_EQ(PsShardCodec(c, 3, 64).pull_words(), 34);
  EXPECT_EQ(PsShardCodec(c, 4, 64).pull_words(), 36);
}

// Shared random-k over a PS shard of 8 elements, k = 2: every worker draws the same indices and
// pushes their values alone; the server sums them and the workers place the sums there, zero
// elsewhere. The residuals keep the rest of each worker's gradient.
TEST(CompressionWorkers, PsShardSharedRandomKSumsTheValuesOfOneDraw) {
  Compression c = kind(CompressionKind::kRandomk, 0.25);
  c.shared_indices = true;
  PsShardCodec codec(c, 3, 8);
  ASSERT_EQ(codec.push_words(), 2);
  ASSERT_EQ(codec.pull_words(), 2);
  ASSERT_FALSE(codec.dense_pull());
  std::vector<Floats> grads(3);
  for (int w = 0; w < 3; ++w)
    for (int i = 0; i < 8; ++i) grads[w].push_back(static_cast<float>((w + 1) * 10 + i));
  std::vector<CodecState> st(3);
  Floats pushes(codec.server_words(), 0.0f);
  for (int w = 0; w < 3; ++w) codec.encode(w, 7, grads[w].data(), pushes.data() + w * 2, st[w]);
  ASSERT_EQ(st[0].drawn.size(), 2u);
  EXPECT_EQ(st[1].drawn, st[0].drawn);
  EXPECT_EQ(st[2].drawn, st[0].drawn);
  CodecState server;
  Floats shard(8);
  codec.reduce(pushes.data(), shard.data(), server);
  Floats out(8, 99.0f);
  codec.decode(pushes.data() + 3 * 2, out.data(), st[0]);
  for (int i = 0; i < 8; ++i) {
    bool drawn = i == static_cast<int>(st[0].drawn[0]) || i == static_cast<int>(st[0].drawn[1]);
    EXPECT_EQ(out[i], drawn ? 60.0f + 3 * i : 0.0f) << i;  // 10 + 20 + 30 + 3i
    EXPECT_EQ(st[1].residual[i], drawn ? 0.0f : 20.0f + i) << i;
  }
}

}  // namespace
}  // namespace scaleout::core
