// The GPU codecs against the host's, on one device: three workers' compressed exchanges emulated
// in one process (each transfer a copy between the workers' buffers), two steps so that the
// error feedback is carried. Top-k, random-k, int8 and onebit must give the host's bits; PowerSGD
// its values to 1e-3 of the largest. Run by gpu_tests (skipped without a GPU).
#include "exec/cuda/device_codecs.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/codecs/codec_backend.hpp"
#include "core/codecs/compression.hpp"
#include "exec/cuda/cuda_check.hpp"

namespace scaleout::exec {
namespace {

using core::CompressionKind;
using core::Span;
constexpr int kWorkers = 3;
constexpr std::int64_t kCount = 100'003;

// Copies `words` words of worker `from`'s buffer at `from_at` into worker `to`'s at `to_at`.
using CopyFn = std::function<void(int to, std::int64_t to_at, int from, std::int64_t from_at,
                                  std::int64_t words)>;

// Each worker's part to its owner: worker r's `part_for(owner)` into the owner's
// `slot_from(r)` (scratch offsets).
template <typename PartFor, typename SlotFrom>
void to_owners(const CopyFn& copy, PartFor part_for, SlotFrom slot_from) {
  for (int r = 0; r < kWorkers; ++r)
    for (int to = 0; to < kWorkers; ++to)
      if (to != r) {
        Span from = part_for(to), into = slot_from(r);
        copy(to, kCount + into.begin, r, kCount + from.begin, from.count);
      }
}

// Worker r's segment `segment_of(r)` of `area` to every other worker.
template <typename SegmentOf>
void all_gather(const CopyFn& copy, Span area, SegmentOf segment_of) {
  std::int64_t per = area.count / kWorkers;
  for (int r = 0; r < kWorkers; ++r)
    for (int to = 0; to < kWorkers; ++to)
      if (to != r) {
        std::int64_t at = kCount + area.begin + segment_of(r) * per;
        copy(to, at, r, at, per);
      }
}

// One bucket's exchange as core/programs/strategies/compressed_ring.cpp runs it.
void bucket_exchange(core::CodecBackend& codecs, const core::BucketCodec& codec,
                     const std::vector<float*>& words, const CopyFn& copy) {
  for (int r = 0; r < kWorkers; ++r) codecs.encode(codec, r, 0, words[r], words[r] + kCount);
  auto segment_of = [&codec](int r) { return codec.segment_of(r); };
  if (codec.owners()) {
    to_owners(
        copy, [&](int to) { return codec.send_slot(codec.segment_of(to)); },
        [&](int from) { return codec.recv_slot(from); });
    for (int r = 0; r < kWorkers; ++r) codecs.owner_reduce(codec, r, 0, words[r] + kCount);
  }
  // Shared random-k's values are summed by the fabric's all-reduce, not by the codecs: each
  // worker decodes its own block, which holds the same indices on every worker.
  if (!codec.shared()) all_gather(copy, codec.gather_area(), segment_of);
  for (int r = 0; r < kWorkers; ++r) codecs.decode(codec, words[r] + kCount, words[r]);
}

void low_rank_sum(core::CodecBackend& codecs, const core::LowRankCodec& codec,
                  const std::vector<float*>& words, const CopyFn& copy, std::int64_t slot) {
  to_owners(
      copy, [&](int to) { return codec.own_part(slot, codec.segment_of(to)); },
      [&](int from) { return codec.recv_slot(slot, from); });
  for (int r = 0; r < kWorkers; ++r) codecs.owner_sum(codec, r, slot, words[r] + kCount);
  all_gather(copy, codec.sum_area(slot), [&codec](int r) { return codec.segment_of(r); });
}

void low_rank_exchange(core::CodecBackend& codecs, const core::LowRankCodec& codec,
                       const std::vector<float*>& words, const CopyFn& copy) {
  for (int r = 0; r < kWorkers; ++r) codecs.encode_p(codec, r, 0, words[r], words[r] + kCount);
  low_rank_sum(codecs, codec, words, copy, codec.p_slot());
  for (int r = 0; r < kWorkers; ++r) codecs.encode_q(codec, r, 0, words[r] + kCount);
  low_rank_sum(codecs, codec, words, copy, codec.q_slot());
  for (int r = 0; r < kWorkers; ++r)
    codecs.decode_low_rank(codec, r, 0, words[r] + kCount, words[r]);
}

// Normal values, or (low_rank) the executed runs' pattern, a matrix of rank about 5.
std::vector<float> gradient(int worker, int step, bool low_rank) {
  std::mt19937 rng(1000 * step + worker);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> g(kCount);
  for (std::int64_t i = 0; i < kCount; ++i)
    g[i] = low_rank ? static_cast<float>((worker + step) % 3 + 1) * static_cast<float>(i % 5 + 1)
                    : normal(rng);
  return g;
}

// Two steps of the exchange on the host and on the device; every worker's gradients after each.
struct Outcome {
  std::vector<std::vector<float>> host, device;
};
Outcome run_both(const core::Compression& c, bool low_rank = false) {
  std::int64_t words = kCount + core::scratch_words(c, kCount, kWorkers);
  auto host_codecs = core::make_host_codecs();
  cudaStream_t stream = nullptr;
  SCALEOUT_CUDA_CHECK(cudaStreamCreate(&stream));
  DeviceCodecs device_codecs(stream);
  std::vector<std::vector<float>> host(kWorkers, std::vector<float>(words, 0.0f));
  std::vector<DeviceFloats> device(kWorkers);
  std::vector<float*> host_words, device_words;
  for (int r = 0; r < kWorkers; ++r) {
    host_words.push_back(host[r].data());
    device_words.push_back(device[r].ensure(words));
  }
  CopyFn host_copy = [&](int to, std::int64_t to_at, int from, std::int64_t from_at,
                         std::int64_t n) {
    std::copy_n(host[from].data() + from_at, n, host[to].data() + to_at);
  };
  CopyFn device_copy = [&](int to, std::int64_t to_at, int from, std::int64_t from_at,
                           std::int64_t n) {
    SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(device_words[to] + to_at, device_words[from] + from_at,
                                        n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  };
  Outcome out;
  for (int step = 0; step < 2; ++step) {
    for (int r = 0; r < kWorkers; ++r) {
      std::vector<float> g = gradient(r, step, low_rank);
      std::copy(g.begin(), g.end(), host[r].begin());
      SCALEOUT_CUDA_CHECK(
          cudaMemcpy(device_words[r], g.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
    }
    if (c.kind == CompressionKind::kPowersgd) {
      core::LowRankCodec codec(c, kWorkers, kCount);
      low_rank_exchange(*host_codecs, codec, host_words, host_copy);
      low_rank_exchange(device_codecs, codec, device_words, device_copy);
    } else {
      core::BucketCodec codec(c, kWorkers, kCount);
      bucket_exchange(*host_codecs, codec, host_words, host_copy);
      bucket_exchange(device_codecs, codec, device_words, device_copy);
    }
    SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int r = 0; r < kWorkers; ++r) {
      out.host.emplace_back(host[r].begin(), host[r].begin() + kCount);
      std::vector<float> d(kCount);
      SCALEOUT_CUDA_CHECK(
          cudaMemcpy(d.data(), device_words[r], kCount * sizeof(float), cudaMemcpyDeviceToHost));
      out.device.push_back(std::move(d));
    }
  }
  SCALEOUT_CUDA_CHECK(cudaStreamDestroy(stream));
  return out;
}

core::Compression compression(CompressionKind kind) {
  core::Compression c;
  c.kind = kind;
  c.density = 0.01;
  c.chunk = 4096;  // several scales a part, the last one short
  c.rank = 4;
  return c;
}

TEST(DeviceCodecs, TopkRandomkInt8AndOnebitGiveTheHostsBits) {
  std::vector<core::Compression> cases;
  for (CompressionKind kind : {CompressionKind::kTopk, CompressionKind::kRandomk,
                               CompressionKind::kInt8, CompressionKind::kOnebit})
    cases.push_back(compression(kind));
  cases.push_back(compression(CompressionKind::kRandomk));
  cases.back().shared_indices = true;
  for (int bits : {2, 4}) {
    cases.push_back(compression(CompressionKind::kQuantize));
    cases.back().bits = bits;
  }
  cases.push_back(cases.back());
  cases.back().allgather = true;
  cases.push_back(compression(CompressionKind::kOnebit));
  cases.back().allgather = cases.back().majority_vote = true;
  cases.back().error_feedback = false;
  for (const core::Compression& c : cases) {
    SCOPED_TRACE(std::string(core::compression_name(c.kind)) + (c.shared_indices ? " shared" : "") +
                 " " + std::to_string(c.bits) + " bits" + (c.allgather ? " all-gathered" : ""));
    Outcome o = run_both(c);
    for (std::size_t w = 0; w < o.host.size(); ++w) {
      long differing = 0;
      for (std::int64_t i = 0; i < kCount; ++i)
        differing += std::bit_cast<std::uint32_t>(o.host[w][i]) !=
                     std::bit_cast<std::uint32_t>(o.device[w][i]);
      EXPECT_EQ(differing, 0) << "worker-step " << w;
    }
  }
}

TEST(DeviceCodecs, PowerSgdAgreesWithTheHostToRounding) {
  core::Compression c = compression(CompressionKind::kPowersgd);
  Outcome o = run_both(c);
  c.rank = 8;  // above the gradient's rank: P's extra columns are zero on both
  Outcome low = run_both(c, true);
  o.host.insert(o.host.end(), low.host.begin(), low.host.end());
  o.device.insert(o.device.end(), low.device.begin(), low.device.end());
  for (std::size_t w = 0; w < o.host.size(); ++w) {
    float largest = 0, worst = 0;
    for (std::int64_t i = 0; i < kCount; ++i) {
      largest = std::max(largest, std::fabs(o.host[w][i]));
      worst = std::max(worst, std::fabs(o.host[w][i] - o.device[w][i]));
    }
    EXPECT_GT(largest, 0.0f);
    EXPECT_LE(worst, 1e-3f * largest) << "worker-step " << w;
  }
}

}  // namespace
}  // namespace scaleout::exec
