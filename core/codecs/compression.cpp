#include "core/codecs/compression.hpp"

#include <algorithm>
#include <cmath>

#include "core/codecs/powersgd_codec.hpp"
#include "core/codecs/ps_codec.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

const std::vector<const char*>& compression_names() {
  static const std::vector<const char*> names{"none", "fp16",   "topk",     "randomk",
                                              "int8", "onebit", "powersgd", "quantize"};
  return names;
}

const char* compression_name(CompressionKind kind) {
  return compression_names()[static_cast<std::size_t>(kind)];
}

std::optional<CompressionKind> parse_compression_kind(const std::string& name) {
  const auto& names = compression_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (name == names[i]) return static_cast<CompressionKind>(i);
  return std::nullopt;
}

std::int64_t sparse_count(const Compression& c, std::int64_t count) {
  auto k = static_cast<std::int64_t>(std::llround(c.density * static_cast<double>(count)));
  return std::clamp<std::int64_t>(k, 1, std::max<std::int64_t>(1, count));
}

std::int64_t elements_per_scale(const Compression& c) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(c.chunk / 4));
}

int elements_per_word(const Compression& c) { return 32 / c.quantize_bits(); }

int quantize_levels(int bits) { return bits == 1 ? 1 : (1 << (bits - 1)) - 1; }

std::int64_t quantized_words(const Compression& c, std::int64_t count) {
  if (count <= 0) return 0;
  return ceil_div(count, elements_per_scale(c)) + ceil_div(count, elements_per_word(c));
}

std::int64_t quantized_slot_words(const Compression& c, std::int64_t count, int workers) {
  return quantized_words(c, ceil_div(count, workers));
}

std::int64_t scratch_words(const Compression& c, std::int64_t count, int workers) {
  if (c.sparse()) return 2 * sparse_count(c, count) * (c.shared_draw() ? 1 : workers);
  if (c.kind == CompressionKind::kPowersgd) return LowRankCodec(c, workers, count).scratch_words();
  if (c.gathered()) return quantized_words(c, count) * workers;  // n encoded buckets
  if (c.on()) return 3 * quantized_slot_words(c, count, workers) * workers;
  return 0;
}

double compressed_wire_bytes(const Compression& c, std::int64_t count, int workers) {
  double n1 = workers - 1;
  if (c.shared_draw()) return ring_wire_bytes(sparse_count(c, count), 4, workers);
  if (c.gathered()) return n1 * static_cast<double>(quantized_words(c, count)) * 4;
  if (c.sparse()) return n1 * 2.0 * static_cast<double>(sparse_count(c, count)) * 4;
  if (c.kind == CompressionKind::kPowersgd) {
    LowRankCodec codec(c, workers, count);
    return 2 * n1 * static_cast<double>(codec.p_slot() + codec.q_slot()) * 4;
  }
  return 2 * n1 * static_cast<double>(quantized_slot_words(c, count, workers)) * 4;
}

double ring_wire_bytes(std::int64_t count, int bytes_per_element, int workers) {
  return 2.0 * (workers - 1) / workers * static_cast<double>(count) * bytes_per_element;
}

CodecSeconds codec_seconds(const Compression& c, const DeviceSpec& device, std::int64_t count,
                           int workers) {
  CodecSeconds s;
  if (!c.on()) return s;
  auto elements = static_cast<double>(count);
  double pass = 1.0 / device.compress_quantize;  // one element-wise pass over one element
  if (c.kind == CompressionKind::kPowersgd) {
    // A whole step at the device's `lowrank` rate, which is rank 4's; rank r takes (r + 4) / 8 of
    // it (on a CPU core 0.75x at rank 1 and 2.5x at rank 16: bench/compression_codecs). It is
    // cut as the program runs it: M and P = M Q (2/5), the orthogonalization and Q_w = M^T P^
    // (1/5), the result P^ Q^T and the error feedback (2/5). The owners' sums are element-wise.
    LowRankCodec codec(c, workers, count);
    const LowRankShape& sh = codec.shape();
    double step =
        static_cast<double>(sh.rows * sh.cols) / device.compress_lowrank * (sh.rank + 4) / 8.0;
    s.encode = 0.4 * step;
    s.owner = workers * static_cast<double>(codec.p_slot() + codec.q_slot()) * pass;
    s.between = 0.2 * step;
    s.decode = 0.4 * step;
    return s;
  }
  if (c.sparse()) {
    double k = static_cast<double>(sparse_count(c, count));
    s.encode = c.kind == CompressionKind::kTopk ? elements / device.compress_topk : elements * pass;
    // zero the bucket, add n blocks (or write the one all-reduced block)
    s.decode = (elements + (c.shared_draw() ? 1 : workers) * k) * pass;
  } else if (c.gathered()) {
    s.encode = elements * pass;
    s.decode = workers * elements * pass;  // decode and add every worker's bucket
  } else {
    double part = std::ceil(elements / workers);
    s.encode = elements * pass;
    s.owner = (workers + 1) * part * pass;  // decode n copies and sum them, re-encode
    s.decode = elements * pass;
  }
  return s;
}

double worker_codec_seconds(const Plan& plan, std::int64_t count) {
  const Compression& c = plan.training.compression;
  if (!c.on()) return 0;
  int n = plan.training.workers;
  if (plan.strategy.kind != StrategyKind::kPs)
    return codec_seconds(c, plan.cluster.device, count, n).total();
  if (plan.strategy.ps_local_aggregation == PsAggregation::kNode)
    return ps_node_bucket(plan, plan_ranks(plan).layout, count).worker_codec_s;
  double seconds = 0;
  int servers = plan.strategy.ps_servers;
  for (int j = 0; j < servers; ++j) {
    PsCodecSeconds s =
        ps_codec_seconds(c, plan.cluster.device, split_part(Span{0, count}, servers, j).count, n);
    seconds += s.encode + s.decode;  // sparse pulls are dense: no decoding (0)
  }
  return seconds;
}

namespace {

// Worker 0 of the compressed PS aggregated per node: its node's dense reduce-scatter and
// all-gather, and its part's encoded pieces pushed and pulled.
void add_node_ps_bucket(const Plan& plan, std::int64_t count, CompressionStep& out) {
  PsNodeBucket b = ps_node_bucket(plan, plan_ranks(plan).layout, count);
  double inside = ring_wire_bytes(count, 4, b.node_workers);
  out.wire_bytes_uncompressed += inside + 2.0 * static_cast<double>(b.part_elements) * 4;
  out.wire_bytes += inside + b.push_bytes + b.pull_bytes;
  out.codec_s += b.worker_codec_s + b.server_codec_s;
  if (plan.training.compression.error_feedback)
    out.error_feedback_bytes += static_cast<double>(b.part_elements) * 4;
}

// A worker of the compressed synchronous PS (core/codecs/ps_codec.hpp): every shard pushed and
// pulled.
void add_ps_bucket(const Plan& plan, std::int64_t count, CompressionStep& out) {
  if (plan.strategy.ps_local_aggregation == PsAggregation::kNode)
    return add_node_ps_bucket(plan, count, out);
  const Compression& c = plan.training.compression;
  int n = plan.training.workers, servers = plan.strategy.ps_servers;
  out.wire_bytes_uncompressed += 2.0 * static_cast<double>(count) * 4;
  double reduce = 0;  // the servers combine their shards at once
  for (int j = 0; j < servers; ++j) {
    std::int64_t shard = split_part(Span{0, count}, servers, j).count;
    PsShardCodec codec(c, n, shard);
    double pull = codec.dense_pull() ? static_cast<double>(shard) : codec.pull_words();
    out.wire_bytes += (static_cast<double>(codec.push_words()) + pull) * 4;
    PsCodecSeconds s = ps_codec_seconds(c, plan.cluster.device, shard, n);
    out.codec_s += s.encode + s.decode;
    reduce = std::max(reduce, ps_codec_seconds(c, ps_server_codec_device(plan), shard, n).reduce);
  }
  out.codec_s += reduce;
  if (c.error_feedback) out.error_feedback_bytes += static_cast<double>(count) * 4;
}

}  // namespace

CompressionStep compression_step(const Plan& plan, const std::vector<std::int64_t>& bucket_counts) {
  const Compression& c = plan.training.compression;
  int n = plan.training.workers;
  CompressionStep out;
  out.kind = compression_name(c.kind);
  out.shared_indices = c.shared_draw();
  for (std::int64_t count : bucket_counts) {
    if (c.on() && plan.strategy.kind == StrategyKind::kPs) {
      add_ps_bucket(plan, count, out);
      continue;
    }
    double plain = ring_wire_bytes(count, plan.training.gradient_bytes_per_element, n);
    out.wire_bytes_uncompressed += c.kind == CompressionKind::kFp16 ? 2 * plain : plain;
    out.wire_bytes += c.on() ? compressed_wire_bytes(c, count, n) : plain;
    out.codec_s += codec_seconds(c, plan.cluster.device, count, n).total();
    if (c.kind == CompressionKind::kPowersgd) {  // M's residual, Q and P^ (kept in any case)
      LowRankShape sh = low_rank_shape(count, c.rank);
      out.error_feedback_bytes +=
          4.0 * static_cast<double>((c.error_feedback ? sh.rows * sh.cols : 0) +
                                    (sh.rows + sh.cols) * sh.rank);
      continue;
    }
    if (c.on() && c.error_feedback) {
      double worker = static_cast<double>(count) * 4;
      bool owns = !c.sparse() && !c.gathered();  // 1-bit Adam's owner keeps its part's
      double owner = owns ? static_cast<double>(ceil_div(count, n)) * 4 : 0;
      out.error_feedback_bytes += worker + owner;
    }
  }
  return out;
}

}  // namespace scaleout::core
