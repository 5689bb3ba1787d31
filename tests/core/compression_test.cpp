// Gradient compression in core: the compressors against hand computations, the wire bytes
// against the closed forms written out here, and the plans that must be refused.
#include "core/codecs/compression.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/codecs/compression_codec.hpp"
#include "core/codecs/powersgd_codec.hpp"
#include "core/model/model_memory.hpp"
#include "core/plan/plan_stamp.hpp"
#include "core/plan/plan_writer.hpp"
#include "core/results/result.hpp"
#include "tests/core/compression_kind.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

using testing::expect_refused;
using testing::Refusal;

using testing::kind;

std::uint32_t bits(float w) {
  std::uint32_t b;
  std::memcpy(&b, &w, sizeof b);
  return b;
}

// One worker's exchange: encode, (owner), decode, as the program runs them with no peers.
std::vector<float> one_worker_step(const BucketCodec& codec, std::vector<float> grad,
                                   CodecState& st, std::vector<float>* scratch_out = nullptr) {
  std::vector<float> scratch(codec.scratch_words());
  codec.encode(0, 0, grad.data(), scratch.data(), st);
  if (!codec.sparse()) codec.owner_reduce(0, scratch.data(), st);
  std::vector<float> out(grad.size());
  codec.decode(scratch.data(), out.data());
  if (scratch_out) *scratch_out = scratch;
  return out;
}

TEST(CompressionCodec, TopKKeepsTheLargestMagnitudesAndCarriesTheRest) {
  Compression c = kind(CompressionKind::kTopk, 0.4);  // 2 of 5
  BucketCodec codec(c, 1, 5);
  CodecState st;
  std::vector<float> scratch;
  // |-5| first, then 3 and -3 tie: the lower index (2) wins.
  auto out = one_worker_step(codec, {1, -5, 3, -3, 0.5f}, st, &scratch);
  EXPECT_EQ(out, (std::vector<float>{0, -5, 3, 0, 0}));
  EXPECT_EQ(bits(scratch[0]), 1u);
  EXPECT_EQ(bits(scratch[1]), 2u);
  EXPECT_EQ(st.residual, (std::vector<float>{1, 0, 0, -3, 0.5f}));
  // The next step sends what was held back: -3, then 1.
  out = one_worker_step(codec, {0, 0, 0, 0, 0}, st);
  EXPECT_EQ(out, (std::vector<float>{1, 0, 0, -3, 0}));
  EXPECT_EQ(st.residual, (std::vector<float>{0, 0, 0, 0, 0.5f}));
}

TEST(CompressionCodec, WithoutErrorFeedbackNothingIsCarried) {
  Compression c = kind(CompressionKind::kTopk, 0.4);
  c.error_feedback = false;
  BucketCodec codec(c, 1, 5);
  CodecState st;
  one_worker_step(codec, {1, -5, 3, -3, 0.5f}, st);
  auto out = one_worker_step(codec, {0, 0, 0, 0, 0}, st);
  EXPECT_EQ(out, (std::vector<float>{0, 0, 0, 0, 0}));
}

TEST(CompressionCodec, OneBitSendsSignsScaledByTheMeanMagnitude) {
  BucketCodec codec(kind(CompressionKind::kOnebit, 0, 16), 1, 4);  // one scale for 4 elements
  CodecState st;
  auto out = one_worker_step(codec, {1, -3, 2, -2}, st);
  EXPECT_EQ(out, (std::vector<float>{2, -2, 2, -2}));  // mean |x| = 2
  EXPECT_EQ(st.residual, (std::vector<float>{-1, -1, 0, 0}));
}

TEST(CompressionCodec, Int8RoundsToTheChunkScale) {
  BucketCodec codec(kind(CompressionKind::kInt8, 0, 16), 1, 4);
  CodecState st;
  auto out = one_worker_step(codec, {127, -63.5f, 0, 1}, st);  // scale 127 / 127 = 1
  EXPECT_EQ(out, (std::vector<float>{127, -64, 0, 1}));
  EXPECT_EQ(st.residual, (std::vector<float>{0, 0.5f, 0, 0}));
}

// QSGD's and CGX's b-bit codes: a chunk's scale is max |x| / (2^(b-1) - 1), each element rounds
// to the nearest level (halves away from zero) and what rounding dropped is carried.
TEST(CompressionCodec, QuantizeRoundsToItsBitsLevels) {
  Compression four = kind(CompressionKind::kQuantize, 0, 16);
  four.bits = 4;  // levels -7..7; scale 7 / 7 = 1
  CodecState st;
  std::vector<float> scratch;
  auto out = one_worker_step(BucketCodec(four, 1, 4), {7, -3.5f, 1, 0}, st, &scratch);
  EXPECT_EQ(out, (std::vector<float>{7, -4, 1, 0}));
  EXPECT_EQ(st.residual, (std::vector<float>{0, 0.5f, 0, 0}));
  // One scale, then 8 codes a word: 0x7, 0xC (-4), 0x1, 0x0 from the lowest bits up.
  EXPECT_EQ(scratch[0], 1.0f);
  EXPECT_EQ(bits(scratch[1]), 0x1C7u);
  Compression two = kind(CompressionKind::kQuantize, 0, 16);
  two.bits = 2;  // levels -1..1; scale 2
  CodecState st2;
  out = one_worker_step(BucketCodec(two, 1, 4), {2, -1, 0.4f, -2}, st2);
  EXPECT_EQ(out, (std::vector<float>{2, -2, 0, -2}));
  EXPECT_EQ(st2.residual, (std::vector<float>{0, 1, 0.4f, 0}));
}

// int8 is quantize with 8 bits and onebit quantize with 1, bit for bit.
TEST(CompressionCodec, EightAndOneBitQuantizeAreInt8AndOnebit) {
  std::vector<float> x = {0.3f, -1.7f, 2.5f, -0.01f, 9.0f, -4.25f, 0.0f, 1.0f, 3.3f};
  for (auto [width, same] :
       {std::pair{8, CompressionKind::kInt8}, std::pair{1, CompressionKind::kOnebit}}) {
    Compression q = kind(CompressionKind::kQuantize, 0, 16);
    q.bits = width;
    std::vector<float> a(quantized_words(q, 9)), b(quantized_words(kind(same, 0, 16), 9));
    ASSERT_EQ(a.size(), b.size());
    encode_quantized(q, x.data(), 9, a.data());
    encode_quantized(kind(same, 0, 16), x.data(), 9, b.data());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(bits(a[i]), bits(b[i]));
  }
}

// signSGD with majority vote: every element takes the sign most workers sent (a tie: 0), the
// scales aside; zero votes up, as a 1-bit code does.
TEST(CompressionCodec, MajorityVoteTakesTheSignMostWorkersSent) {
  auto vote = [](const std::vector<std::vector<float>>& grads) {
    Compression c = kind(CompressionKind::kOnebit, 0, 16);
    c.allgather = c.majority_vote = true;
    c.error_feedback = false;
    int n = static_cast<int>(grads.size());
    BucketCodec codec(c, n, 4);
    std::vector<float> scratch(codec.scratch_words()), out(4, 9.0f);
    std::vector<CodecState> states(n);
    for (int r = 0; r < n; ++r) codec.encode(r, 0, grads[r].data(), scratch.data(), states[r]);
    codec.decode(scratch.data(), out.data());
    return out;
  };
  EXPECT_EQ(vote({{1, -1, 1, -1}, {5, 2, -1, -3}, {-7, 1, 0, -1}}),
            (std::vector<float>{1, 1, 1, -1}));
  EXPECT_EQ(vote({{1, -1, 0, -2}, {-1, -1, 3, 4}}), (std::vector<float>{0, -1, 1, 0}));
}

TEST(CompressionCodec, RandomKDrawsDifferentElementsEachStep) {
  BucketCodec codec(kind(CompressionKind::kRandomk, 0.1), 1, 1000);
  CodecState st;
  std::vector<float> scratch;
  std::vector<float> ones(1000, 1.0f);
  one_worker_step(codec, ones, st, &scratch);
  std::vector<float> first(scratch.begin(), scratch.begin() + 100);
  one_worker_step(codec, ones, st, &scratch);
  std::vector<float> second(scratch.begin(), scratch.begin() + 100);
  std::vector<std::uint32_t> a, b;
  for (int j = 0; j < 100; ++j) a.push_back(bits(first[j])), b.push_back(bits(second[j]));
  EXPECT_NE(a, b);
  for (int j = 1; j < 100; ++j) EXPECT_LT(a[j - 1], a[j]);  // distinct, ascending
  EXPECT_LT(a.back(), 1000u);
}

// GRACE's random-k: the seed is (step, bucket) alone, so every worker picks the same elements,
// writes them as one block at the scratch's start and sends only the values.
TEST(CompressionCodec, SharedRandomKDrawsTheSameIndicesOnEveryWorker) {
  Compression c = kind(CompressionKind::kRandomk, 0.1);
  c.shared_indices = true;
  BucketCodec shared(c, 3, 1000), own(kind(CompressionKind::kRandomk, 0.1), 3, 1000);
  EXPECT_EQ(shared.scratch_words(), 2 * 100);
  std::vector<float> grad(1000);
  for (int i = 0; i < 1000; ++i) grad[i] = static_cast<float>(i + 1);
  // Indices in the block's first k words, then the values at them.
  auto indices = [&](const BucketCodec& codec, int rank) {
    std::vector<float> scratch(codec.scratch_words());
    CodecState st;
    codec.encode(rank, 7, grad.data(), scratch.data(), st);
    std::vector<std::uint32_t> idx;
    const float* block = scratch.data() + codec.block_of(rank);
    for (int j = 0; j < 100; ++j) {
      idx.push_back(bits(block[j]));
      EXPECT_EQ(block[100 + j], grad[idx.back()]);
    }
    return idx;
  };
  EXPECT_EQ(shared.block_of(2), 0);
  EXPECT_EQ(indices(shared, 1), indices(shared, 0));
  EXPECT_EQ(indices(shared, 2), indices(shared, 0));
  EXPECT_NE(indices(own, 1), indices(own, 0));  // each worker's own draw differs
  // The summed values land at the shared indices of a zeroed bucket.
  std::vector<float> scratch(shared.scratch_words()), out(1000, 5.0f);
  CodecState st;
  shared.encode(0, 7, grad.data(), scratch.data(), st);
  shared.decode(scratch.data(), out.data());
  int kept = 0, zero = 0;
  for (int i = 0; i < 1000; ++i) {
    kept += out[i] == grad[i] ? 1 : 0;
    zero += out[i] == 0 ? 1 : 0;
  }
  EXPECT_EQ(kept, 100);
  EXPECT_EQ(zero, 900);
}

TEST(CompressionWire, SharedIndicesAreReportedAndReadBack) {
  Plan plan;
  plan.training.workers = 4;
  plan.training.compression = kind(CompressionKind::kRandomk, 0.01);
  plan.training.compression.shared_indices = true;
  RunResult r;
  r.compression = compression_step(plan, {100000});
  EXPECT_TRUE(r.compression->shared_indices);
  EXPECT_DOUBLE_EQ(r.compression->wire_bytes, 2.0 * 3 / 4 * 1000 * 4);
  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["compression"]["shared_indices"], true);
  EXPECT_TRUE(result_from_json(j).compression->shared_indices);
  plan.training.compression.shared_indices = false;
  r.compression = compression_step(plan, {100000});
  EXPECT_FALSE(to_json(r)["compression"].contains("shared_indices"));
}

TEST(CompressionWire, BytesPerWorkerFollowTheClosedForms) {
  // Top-k all-gather: (n - 1) x k x (4-byte index + 4-byte value).
  EXPECT_DOUBLE_EQ(compressed_wire_bytes(kind(CompressionKind::kTopk, 0.001), 1000000, 8),
                   7.0 * 1000 * 8);
  // Random-k with shared indices: a ring all-reduce of the k values, 2 (n - 1) / n x 4k bytes;
  // each worker's own draw all-gathers (index, value) pairs, n times as many bytes.
  Compression shared = kind(CompressionKind::kRandomk, 0.001);
  shared.shared_indices = true;
  EXPECT_DOUBLE_EQ(compressed_wire_bytes(shared, 1000000, 8), 2.0 * 7 / 8 * 1000 * 4);
  EXPECT_DOUBLE_EQ(compressed_wire_bytes(kind(CompressionKind::kRandomk, 0.001), 1000000, 8) /
                       compressed_wire_bytes(shared, 1000000, 8),
                   8.0);
  // 4-bit quantize: the same part is 131,072 words of 8 codes and its 4 scales, sent 2 (n - 1)
  // times.
  Compression four = kind(CompressionKind::kQuantize);
  four.bits = 4;
  EXPECT_DOUBLE_EQ(compressed_wire_bytes(four, 8 << 20, 8), 14.0 * (131072 + 4) * 4);
  // 1-bit all-gathered (GRACE): the whole bucket's 262,144 words of signs and 32 scales, sent
  // n - 1 times.
  Compression gathered = kind(CompressionKind::kOnebit);
  gathered.allgather = true;
  EXPECT_DOUBLE_EQ(compressed_wire_bytes(gathered, 8 << 20, 8), 7.0 * (262144 + 32) * 4);
  // 1-bit: a part of 8M / 8 = 1,048,576 elements is 32,768 words of signs and 4 scales (one per
  // 1 MiB of fp32 = 262,144 elements); 2 (n - 1) parts of it: about 1/32 of the ring's bytes.
  std::int64_t count = 8 << 20;
  double onebit = compressed_wire_bytes(kind(CompressionKind::kOnebit), count, 8);
  EXPECT_DOUBLE_EQ(onebit, 2.0 * 7 * (32768 + 4) * 4);
  double ring = ring_wire_bytes(count, 4, 8);
  EXPECT_NEAR(onebit / ring, 1.0 / 32, 0.001);
  // int8: 4 elements a word, about a quarter.
  double int8 = compressed_wire_bytes(kind(CompressionKind::kInt8), count, 8);
  EXPECT_DOUBLE_EQ(int8, 2.0 * 7 * (262144 + 4) * 4);
}

TEST(CompressionWire, PowerSgdSendsPAndQ) {
  // 1,000,000 elements: 977 x 1,024 (the power of two nearest the square root). Rank 4 over 8
  // workers: parts of ceil(977 x 4 / 8) = 489 words of P and 1,024 x 4 / 8 = 512 of Q, each sent
  // to its owner and all-gathered: 2 (n - 1) parts of each.
  Compression c = kind(CompressionKind::kPowersgd);
  c.rank = 4;
  LowRankShape sh = low_rank_shape(1000000, 4);
  EXPECT_EQ(sh.rows, 977);
  EXPECT_EQ(sh.cols, 1024);
  EXPECT_DOUBLE_EQ(compressed_wire_bytes(c, 1000000, 8), 2.0 * 7 * (489 + 512) * 4);
  // About 2 (rows + cols) r elements, as a ring all-reduce of P and Q would send.
  EXPECT_NEAR(compressed_wire_bytes(c, 1000000, 8) / (2.0 * 7 / 8 * (977 + 1024) * 4 * 4), 1, 0.01);
  // Its codec: a whole step of the 977 x 1,024 matrix at the device's rank-4 rate (30 G/s by
  // default), rank 16 taking (16 + 4) / 8 of it, and the owners' sums element-wise (40 G/s).
  DeviceSpec device;
  double sums = 8.0 * (489 + 512) / 40e9;
  EXPECT_NEAR(codec_seconds(c, device, 1000000, 8).total(), 977.0 * 1024 / 30e9 + sums, 1e-15);
  c.rank = 16;
  EXPECT_NEAR(
      codec_seconds(c, device, 1000000, 8).total(),
      977.0 * 1024 / 30e9 * 20 / 8 + 8.0 * (std::ceil(977.0 * 16 / 8) + 1024 * 16 / 8) / 40e9,
      1e-15);
  c.rank = 4;
  // A rank above a small bucket's smaller side is that side: 10 elements are 3 x 4.
  EXPECT_EQ(low_rank_shape(10, 8).rank, 3);
}

TEST(PowerSgdCodec, ARankOneGradientComesBackAndTheRestIsCarried) {
  // One worker: its sums are its own. M = u v^T (rank 1) is recovered by rank-1 compression.
  Compression c = kind(CompressionKind::kPowersgd);
  c.rank = 1;
  const std::int64_t rows = 8, cols = 8, count = rows * cols;  // 8 x 8: cols 2^3
  LowRankCodec codec(c, 1, count);
  ASSERT_EQ(codec.shape().rows, rows);
  std::vector<float> grad(count), out(count), scratch(codec.scratch_words());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) grad[i * cols + j] = (i + 1.0f) * (j % 3 - 1.5f);
  LowRankState st;
  auto exchange = [&] {
    codec.encode_p(7, grad.data(), scratch.data(), st);
    codec.owner_sum(0, codec.p_slot(), scratch.data());
    codec.encode_q(scratch.data(), st);
    codec.owner_sum(0, codec.q_slot(), scratch.data());
    codec.decode(scratch.data(), out.data(), st);
  };
  exchange();
  for (std::int64_t e = 0; e < count; ++e) EXPECT_NEAR(out[e], grad[e], 1e-4) << e;
  // A matrix of higher rank through rank 1: what is lost is kept (result + kept = M), and the next
  // step compresses the gradient plus what was kept.
  for (std::int64_t i = 0; i < rows; ++i) grad[i * cols + i] += 5;
  LowRankState fresh;
  st = fresh;
  exchange();
  double lost = 0;
  for (std::int64_t e = 0; e < count; ++e) {
    EXPECT_NEAR(out[e] + st.m[e], grad[e], 1e-4) << e;
    lost += std::fabs(st.m[e]);
  }
  EXPECT_GT(lost, 1);
  std::vector<float> kept = st.m;
  codec.encode_p(7, grad.data(), scratch.data(), st);
  for (std::int64_t e = 0; e < count; ++e) EXPECT_EQ(st.m[e], grad[e] + kept[e]) << e;
  // Without error feedback nothing is kept.
  Compression plain = c;
  plain.error_feedback = false;
  LowRankCodec forgetful(plain, 1, count);
  LowRankState none;
  forgetful.encode_p(7, grad.data(), scratch.data(), none);
  forgetful.owner_sum(0, forgetful.p_slot(), scratch.data());
  forgetful.encode_q(scratch.data(), none);
  forgetful.owner_sum(0, forgetful.q_slot(), scratch.data());
  forgetful.decode(scratch.data(), out.data(), none);
  EXPECT_TRUE(none.m.empty());
}

// A gradient of lower rank than r: P's extra columns lie in the span of the first (to rounding),
// and normalizing what rounding leaves of them would add directions that are not in P. They are
// zeroed, so rank 4 gives back a rank-one matrix as rank 1 does.
TEST(PowerSgdCodec, ARankOneGradientThroughRankFourComesBack) {
  Compression c = kind(CompressionKind::kPowersgd);
  c.rank = 4;
  const std::int64_t rows = 64, cols = 64, count = rows * cols;
  LowRankCodec codec(c, 1, count);
  ASSERT_EQ(codec.shape().rank, 4);
  std::vector<float> grad(count), out(count), scratch(codec.scratch_words());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) grad[i * cols + j] = (i % 7 + 1.0f) * (j % 3 - 1.5f);
  LowRankState st;
  codec.encode_p(7, grad.data(), scratch.data(), st);
  codec.owner_sum(0, codec.p_slot(), scratch.data());
  codec.encode_q(scratch.data(), st);
  codec.owner_sum(0, codec.q_slot(), scratch.data());
  codec.decode(scratch.data(), out.data(), st);
  for (std::int64_t e = 0; e < count; ++e) EXPECT_NEAR(out[e], grad[e], 1e-3) << e;
}

TEST(CompressionWire, StepSumsBucketsAndCountsErrorFeedback) {
  Plan plan;
  plan.training.workers = 4;
  plan.training.compression = kind(CompressionKind::kOnebit);
  CompressionStep s = compression_step(plan, {1000, 1000});
  EXPECT_EQ(s.kind, "onebit");
  EXPECT_DOUBLE_EQ(s.wire_bytes_uncompressed, 2 * 2.0 * 3 / 4 * 1000 * 4);
  // Per bucket: parts of 1000 / 4 = 250 elements, each one scale (a scale covers 262,144) and
  // ceil(250 / 32) = 8 words of signs: 9 words; 2 (n - 1) = 6 of them sent: 216 bytes. Two buckets:
  // 432 bytes.
  EXPECT_DOUBLE_EQ(s.wire_bytes, 2 * 6 * 9 * 4.0);
  // Per bucket, in element passes at the default 40 G elements/s: encode 1000, the owner decodes
  // 4 copies of its 250 and re-encodes them ((4 + 1) x 250 = 1250), decode 1000: 3250. Two
  // buckets: 6500 / 40e9 = 162.5 ns.
  EXPECT_NEAR(s.codec_s, 6500 / 40e9, 1e-18);
  // Per bucket: a worker's residual (1000 floats) and its owned part's (250).
  EXPECT_DOUBLE_EQ(s.error_feedback_bytes, 2 * (1000 + 250) * 4.0);
}

// Over the parameter server each worker pushes every shard compressed and pulls the servers' sums:
// sparse kinds pull them dense, quantized kinds encoded (core/codecs/ps_codec.hpp).
TEST(CompressionWire, AParameterServerWorkerPushesCompressedAndPulls) {
  Plan plan;
  plan.training.workers = 16;
  plan.strategy.kind = StrategyKind::kPs;
  plan.strategy.ps_servers = 2;
  plan.training.compression = kind(CompressionKind::kTopk, 0.001);
  // Shards of 500,000: 500 (index, value) pairs pushed to each server, each shard pulled dense.
  CompressionStep topk = compression_step(plan, {1000000});
  EXPECT_DOUBLE_EQ(topk.wire_bytes, 2 * (500 * 8.0 + 500000 * 4.0));
  EXPECT_DOUBLE_EQ(topk.wire_bytes_uncompressed, 2 * 1000000 * 4.0);
  // 1-bit: a shard of 500,000 is 2 scales (262,144 elements each) and 15,625 words of signs,
  // pushed and pulled.
  plan.training.compression = kind(CompressionKind::kOnebit);
  CompressionStep onebit = compression_step(plan, {1000000});
  EXPECT_DOUBLE_EQ(onebit.wire_bytes, 2 * 2 * (2 + 15625) * 4.0);
  EXPECT_DOUBLE_EQ(onebit.error_feedback_bytes, 1000000 * 4.0);  // the worker's residual
  // Shared random-k: 500 values of each shard pushed, their 500 sums pulled.
  plan.training.compression = kind(CompressionKind::kRandomk, 0.001);
  plan.training.compression.shared_indices = true;
  EXPECT_DOUBLE_EQ(compression_step(plan, {1000000}).wire_bytes, 2 * 2 * 500 * 4.0);
  // signSGD's vote among 16 workers: signs pushed (2 scales, 15,625 words a shard), the vote
  // pulled as 2-bit codes (2 scales, 31,250 words): an even vote can tie.
  plan.training.compression = kind(CompressionKind::kOnebit);
  plan.training.compression.majority_vote = true;
  plan.training.compression.error_feedback = false;
  CompressionStep vote = compression_step(plan, {1000000});
  EXPECT_DOUBLE_EQ(vote.wire_bytes, 2 * ((2 + 15625) + (2 + 31250)) * 4.0);
  EXPECT_DOUBLE_EQ(vote.error_feedback_bytes, 0);
}

// The inline cluster and workload (lines 1-8), then `rest` from line 9.
std::string plan(const std::string& rest) {
  return std::string(testing::kInlineCluster) + testing::kInlineWorkload + rest;
}

const std::string kRing = "strategy: { kind: ring }\n";  // line 9

class CompressionRefused : public ::testing::TestWithParam<Refusal> {};

TEST_P(CompressionRefused, NamesFileLineAndWhy) {
  const Refusal& r = GetParam();
  expect_refused(r.name, r.yaml, r.line, r.expect);
}

std::string training(const std::string& compression) {
  return "training:\n  workers: 8\n  compression: " + compression + "\n";  // line 12
}

INSTANTIATE_TEST_SUITE_P(
    Plans, CompressionRefused,
    ::testing::Values(
        Refusal{"density_zero", plan(kRing + training("{ kind: topk, density: 0 }")), 12,
                "density"},
        Refusal{"density_above_one", plan(kRing + training("{ kind: randomk, density: 1.5 }")), 12,
                "density"},
        Refusal{"unknown_kind", plan(kRing + training("{ kind: top-k }")), 12, "onebit"},
        Refusal{"shared_indices_on_topk",
                plan(kRing + training("{ kind: topk, shared_indices: true }")), 12,
                "applies to randomk only: topk picks each worker's largest elements"},
        Refusal{"shared_indices_not_a_boolean",
                plan(kRing + training("{ kind: randomk, shared_indices: often }")), 12,
                "true or false"},
        Refusal{"vote_over_ps_aggregated_per_node",
                plan("strategy: { kind: ps, local_aggregation: node }\n" +
                     training("{ kind: onebit, majority_vote: true, error_feedback: false }")),
                12, "a node's sum would vote"},
        Refusal{"torus_cannot_carry_topk",
                plan("strategy: { kind: torus2d }\n" + training("{ kind: topk }")), 9,
                "torus2d cannot carry it"},
        Refusal{"powersgd_over_ps",
                plan("strategy: { kind: ps }\n" + training("{ kind: powersgd }")), 12,
                "PowerSGD's two all-reduces run over the ring"},
        Refusal{"compressed_async_ps",
                plan("strategy: { kind: ps, mode: async }\n" + training("{ kind: topk }")), 9,
                "synchronous steps only"},
        // 10M parameters: a 2,442 x 4,096 matrix at most (core/codecs/powersgd_codec.hpp).
        Refusal{"powersgd_rank_above_the_matrix",
                plan(kRing + training("{ kind: powersgd, rank: 4000 }")), 12, "2442 x 4096"},
        Refusal{"rank_below_one", plan(kRing + training("{ kind: powersgd, rank: 0 }")), 12,
                "rank"},
        Refusal{"int8_of_fp16",
                plan(kRing + "training:\n  workers: 8\n  gradient_precision: fp16\n"
                             "  compression: { kind: int8 }\n"),
                12, "fp32"},
        Refusal{"chunk_below_an_element", plan(kRing + training("{ kind: onebit, chunk: 2B }")), 12,
                "chunk"},
        Refusal{"density_on_int8", plan(kRing + training("{ kind: int8, density: 0.1 }")), 12,
                "density"},
        Refusal{"three_bits", plan(kRing + training("{ kind: quantize, bits: 3 }")), 12,
                "must be 1, 2, 4 or 8"},
        Refusal{"bits_on_int8", plan(kRing + training("{ kind: int8, bits: 4 }")), 12, "bits"},
        Refusal{"exchange_on_topk", plan(kRing + training("{ kind: topk, exchange: allgather }")),
                12, "applies to int8, onebit and quantize: topk has one exchange"},
        Refusal{"unknown_exchange", plan(kRing + training("{ kind: onebit, exchange: ring }")), 12,
                "allgather"},
        Refusal{"vote_on_int8",
                plan(kRing + training("{ kind: int8, exchange: allgather, majority_vote: true, "
                                      "error_feedback: false }")),
                12, "applies to signs"},
        Refusal{
            "vote_without_allgather",
            plan(kRing + training("{ kind: onebit, majority_vote: true, error_feedback: false }")),
            12, "needs exchange: allgather"},
        Refusal{
            "vote_with_error_feedback",
            plan(kRing + training("{ kind: onebit, exchange: allgather, majority_vote: true }")),
            12, "give error_feedback: false"},
        Refusal{"allgather_over_ps",
                plan("strategy: { kind: ps }\n" + training("{ kind: int8, exchange: allgather }")),
                12, "exchange: allgather runs over the ring"},
        Refusal{"bad_rate",
                std::string("cluster:\n  name: c\n  devices_per_node: 8\n"
                            "  device: { flops: 100TFLOPS, compress: { topk: fast } }\n"
                            "  intra_node: { bandwidth: 150GB/s, latency: 1us }\n"
                            "  nic: { bandwidth: 100Gbps, latency: 2us }\n  nodes: 2\n") +
                    testing::kInlineWorkload + kRing + training("{ kind: topk }"),
                4, "elements per second"}));

TEST(CompressionPlan, LoadsKindsAndRates) {
  std::string cluster = std::string(testing::kInlineCluster);
  cluster.replace(cluster.find("{ flops: 100TFLOPS }"), 20,
                  "{ flops: 100TFLOPS, compress: { topk: 1.5G/s, quantize: 20G, lowrank: 5G/s } }");
  Plan p = testing::load_text(
      "loads", cluster + testing::kInlineWorkload + kRing +
                   training("{ kind: topk, density: 0.001, error_feedback: false }"));
  EXPECT_EQ(p.training.compression.kind, CompressionKind::kTopk);
  EXPECT_DOUBLE_EQ(p.training.compression.density, 0.001);
  EXPECT_FALSE(p.training.compression.error_feedback);
  EXPECT_DOUBLE_EQ(p.cluster.device.compress_topk, 1.5e9);
  EXPECT_DOUBLE_EQ(p.cluster.device.compress_quantize, 20e9);
  EXPECT_DOUBLE_EQ(p.cluster.device.compress_lowrank, 5e9);
  Plan half = testing::load_text("fp16", plan(kRing + training("{ kind: fp16 }")));
  EXPECT_EQ(half.training.gradient_precision, "fp16");
  EXPECT_EQ(half.training.gradient_bytes_per_element, 2);
}

TEST(CompressionPlan, SavedPlansRoundTripAndStampTheirCompression) {
  std::string cluster = std::string(testing::kInlineCluster);
  cluster.replace(cluster.find("{ flops: 100TFLOPS }"), 20,
                  "{ flops: 100TFLOPS, compress: { topk: 1.5G/s, quantize: 20G, lowrank: 5G/s } }");
  for (const std::string& c :
       {std::string("{ kind: topk, density: 0.001, error_feedback: false }"),
        std::string("{ kind: onebit, chunk: 64KiB }"), std::string("{ kind: fp16 }"),
        std::string("{ kind: randomk, density: 0.01, shared_indices: true }"),
        std::string("{ kind: quantize, bits: 4, chunk: 64KiB }"),
        std::string("{ kind: onebit, exchange: allgather }"),
        std::string("{ kind: quantize, bits: 1, exchange: allgather, majority_vote: true, "
                    "error_feedback: false }")}) {
    Plan p = testing::load_text("save", cluster + testing::kInlineWorkload + kRing + training(c));
    Plan back = testing::load_text("back", plan_to_yaml(p));
    const Compression &a = p.training.compression, &b = back.training.compression;
    EXPECT_EQ(a.kind, b.kind) << c;
    EXPECT_EQ(a.density, b.density) << c;
    EXPECT_EQ(a.chunk, b.chunk) << c;
    EXPECT_EQ(a.error_feedback, b.error_feedback) << c;
    EXPECT_EQ(a.shared_indices, b.shared_indices) << c;
    EXPECT_EQ(a.bits, b.bits) << c;
    EXPECT_EQ(a.allgather, b.allgather) << c;
    EXPECT_EQ(a.majority_vote, b.majority_vote) << c;
    EXPECT_EQ(a.shared_indices, c.find("shared_indices") != std::string::npos) << c;
    EXPECT_EQ(back.cluster.device.compress_topk, 1.5e9);
    EXPECT_EQ(back.cluster.device.compress_quantize, 20e9);
    EXPECT_EQ(back.cluster.device.compress_lowrank, 5e9);
    Plan plain = p;
    plain.training.compression = Compression{};
    EXPECT_NE(plan_stamp(p).hash, plan_stamp(plain).hash) << c;
  }
}

TEST(CompressionPlan, ErrorFeedbackCountsAgainstDeviceMemory) {
  Plan p;
  p.training.workers = 8;
  p.workload.parameters = 1e9;
  p.cluster.device.memory = 10e9;  // fp32 weights and gradients: 8 GB, fits
  EXPECT_EQ(data_parallel_does_not_fit(p), "");
  p.training.compression = kind(CompressionKind::kTopk);  // + a 4 GB residual: 12 GB
  EXPECT_NE(data_parallel_does_not_fit(p).find("error feedback"), std::string::npos);
  p.training.compression.error_feedback = false;
  EXPECT_EQ(data_parallel_does_not_fit(p), "");
}

}  // namespace
}  // namespace scaleout::core
