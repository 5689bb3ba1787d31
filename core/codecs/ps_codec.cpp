#include "core/codecs/ps_codec.hpp"

#include <algorithm>
#include <bit>
#include <cassert>

#include "core/codecs/codec_steps.hpp"
#include "core/codecs/compression.hpp"
#include "core/programs/strategies/ps_node_pieces.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

namespace {

// The codes a majority vote comes back in: signs when the voters are odd (a tie cannot happen),
// 2-bit codes otherwise, whose levels -1, 0 and +1 carry a tie exactly.
Compression pull_codes(const Compression& c, int workers) {
  if (!c.majority_vote || workers % 2 == 1) return c;
  Compression two = c;
  two.kind = CompressionKind::kQuantize;
  two.bits = 2;
  return two;
}

}  // namespace

PsShardCodec::PsShardCodec(const Compression& c, int workers, std::int64_t count)
    : c_(c),
      pulled_(pull_codes(c, workers)),
      workers_(workers),
      count_(count),
      sparse_(c.sparse()),
      shared_(c.shared_draw()) {
  assert(c.on() && c.kind != CompressionKind::kPowersgd);
  if (count == 0) return;  // an empty shard: nothing pushed, nothing to combine
  if (sparse_) {
    k_ = sparse_count(c, count);
    push_ = shared_ ? k_ : 2 * k_;
    pull_ = shared_ ? k_ : 0;
  } else {
    push_ = quantized_words(c, count);
    pull_ = quantized_words(pulled_, count);
  }
}

void PsShardCodec::encode(int rank, std::uint64_t shard_id, const float* grad, float* push,
                          CodecState& st) const {
  std::uint64_t step = st.steps++;
  if (count_ == 0) return;
  std::vector<float> x(grad, grad + count_);
  if (c_.error_feedback) {
    st.residual.resize(count_, 0.0f);
    for (std::int64_t i = 0; i < count_; ++i) x[i] += st.residual[i];
  }
  if (sparse_) {
    std::vector<std::uint32_t> idx =
        c_.kind == CompressionKind::kTopk
            ? top_k_indices(x.data(), count_, k_)
            : random_k_indices(shared_ ? 0 : rank, step, shard_id, count_, k_);
    for (std::int64_t j = 0; j < k_; ++j) {
      if (!shared_) push[j] = std::bit_cast<float>(idx[j]);
      push[(shared_ ? 0 : k_) + j] = x[idx[j]];
    }
    if (c_.error_feedback) {
      st.residual = x;
      for (std::uint32_t i : idx) st.residual[i] = 0;
    }
    if (shared_) st.drawn = std::move(idx);
  } else {
    encode_quantized(c_, x.data(), count_, push);
    if (c_.error_feedback) {
      std::vector<float> sent(count_);
      decode_quantized(c_, push, count_, sent.data(), false);
      for (std::int64_t i = 0; i < count_; ++i) st.residual[i] = x[i] - sent[i];
    }
  }
}

void PsShardCodec::reduce(float* pushes, float* shard, CodecState& server) const {
  if (count_ == 0) return;
  float* result = pushes + workers_ * push_;
  if (shared_) {  // the values of the same indices: summed in worker order
    std::fill(result, result + k_, 0.0f);
    for (int w = 0; w < workers_; ++w)
      for (std::int64_t j = 0; j < k_; ++j) result[j] += pushes[w * push_ + j];
    return;
  }
  if (sparse_) {
    std::fill(shard, shard + count_, 0.0f);
    for (int w = 0; w < workers_; ++w) {
      const float* block = pushes + w * push_;
      for (std::int64_t j = 0; j < k_; ++j)
        shard[std::bit_cast<std::uint32_t>(block[j])] += block[k_ + j];
    }
    return;
  }
  std::vector<float> sum(count_, 0.0f);
  if (c_.majority_vote) {
    vote_signs(c_, pushes, push_, workers_, count_, sum.data());
    encode_quantized(pulled_, sum.data(), count_, result);
    return;
  }
  for (int w = 0; w < workers_; ++w)
    decode_quantized(c_, pushes + w * push_, count_, sum.data(), true);
  if (c_.error_feedback) {
    server.residual.resize(count_, 0.0f);
    for (std::int64_t i = 0; i < count_; ++i) sum[i] += server.residual[i];
  }
  encode_quantized(c_, sum.data(), count_, result);
  if (c_.error_feedback) {
    std::vector<float> sent(count_);
    decode_quantized(c_, result, count_, sent.data(), false);
    for (std::int64_t i = 0; i < count_; ++i) server.residual[i] = sum[i] - sent[i];
  }
}

void PsShardCodec::decode(const float* pulled, float* grad, const CodecState& st) const {
  if (count_ == 0) return;
  if (shared_) {
    std::fill(grad, grad + count_, 0.0f);
    for (std::int64_t j = 0; j < k_; ++j) grad[st.drawn[j]] = pulled[j];
    return;
  }
  decode_quantized(pulled_, pulled, count_, grad, false);
}

PsCodecSeconds ps_codec_seconds(const Compression& c, const DeviceSpec& device, std::int64_t count,
                                int workers) {
  PsCodecSeconds s;
  auto elements = static_cast<double>(count);
  double pass = 1.0 / device.compress_quantize;  // one element-wise pass over one element
  if (c.shared_draw()) {
    double k = static_cast<double>(sparse_count(c, count));
    s.encode = elements * pass;
    s.reduce = workers * k * pass;  // add the values
    s.decode = elements * pass;     // zero the shard, place the sums
  } else if (c.sparse()) {
    double k = static_cast<double>(sparse_count(c, count));
    s.encode = c.kind == CompressionKind::kTopk ? elements / device.compress_topk : elements * pass;
    s.reduce = (elements + workers * k) * pass;  // zero the shard, add the blocks
  } else {
    s.encode = elements * pass;
    s.reduce = (workers + 1) * elements * pass;  // decode and sum the pushes, re-encode
    s.decode = elements * pass;
  }
  return s;
}

std::int64_t ps_scratch_words(const Compression& c, std::int64_t count, int workers, int servers) {
  std::int64_t worker = 0, server = 0;
  for (int j = 0; j < servers; ++j) {
    PsShardCodec codec(c, workers, split_part(Span{0, count}, servers, j).count);
    worker += std::max(codec.push_words(), codec.pull_words());
    server = std::max(server, codec.server_words());
  }
  return std::max(worker, server);
}

DeviceSpec ps_server_codec_device(const Plan& plan) {
  DeviceSpec d = plan.cluster.device;
  if (plan.strategy.ps_server_hosts == PsServerHosts::kCpu)
    d.compress_quantize = d.compress_topk = plan.cluster.host.codec_rate;
  return d;
}

std::int64_t ps_node_scratch_words(const Compression& c, const RankLayout& layout,
                                   std::int64_t count) {
  NodeGroups g = group_by_node(layout);
  std::vector<NodePiece> pieces = node_pieces(g, Span{0, count}, layout.servers);
  std::vector<std::int64_t> words(layout.workers + layout.servers, 0);
  for (const NodePiece& p : pieces) {
    PsShardCodec codec(c, g.nodes(), p.span.count);
    for (int w : p.owners) words[w] += codec.push_words();
    words[layout.workers + p.server] += g.nodes() * codec.push_words() + codec.pull_words();
  }
  return *std::max_element(words.begin(), words.end());
}

PsNodeBucket ps_node_bucket(const Plan& plan, const RankLayout& layout, std::int64_t count) {
  const Compression& c = plan.training.compression;
  NodeGroups g = group_by_node(layout);
  PsNodeBucket b;
  b.part_elements = node_part(g, Span{0, count}, 0).count;
  b.node_workers = static_cast<int>(g.members[g.node_of[0]].size());
  DeviceSpec server = ps_server_codec_device(plan);
  std::vector<double> worker_s(layout.workers, 0.0), server_s(layout.servers, 0.0);
  for (const NodePiece& p : node_pieces(g, Span{0, count}, layout.servers)) {
    PsShardCodec codec(c, g.nodes(), p.span.count);
    PsCodecSeconds s = ps_codec_seconds(c, plan.cluster.device, p.span.count, g.nodes());
    for (int w : p.owners) worker_s[w] += s.encode + s.decode;
    server_s[p.server] += ps_codec_seconds(c, server, p.span.count, g.nodes()).reduce;
    if (p.owners[g.node_of[0]] != 0) continue;
    b.push_bytes += 4.0 * static_cast<double>(codec.push_words());
    b.pull_bytes +=
        4.0 * static_cast<double>(codec.dense_pull() ? p.span.count : codec.pull_words());
  }
  b.worker_codec_s = *std::max_element(worker_s.begin(), worker_s.end());
  b.server_codec_s = *std::max_element(server_s.begin(), server_s.end());
  return b;
}

}  // namespace scaleout::core
