#include "core/codecs/compression_codec.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <numeric>

#include "core/codecs/codec_steps.hpp"
#include "core/codecs/compression.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

namespace {

// Words are 4-byte slots of the fp32 buffer: indices and packed codes are stored bit for bit.
float to_word(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t from_word(float w) { return std::bit_cast<std::uint32_t>(w); }

// A `bits`-bit code's value: its low bits as a two's complement number (bits 2 to 8).
int signed_code(std::uint32_t code, int bits) {
  auto shift = static_cast<unsigned>(32 - bits);
  return static_cast<std::int32_t>(code << shift) >> shift;
}

}  // namespace

void encode_quantized(const Compression& c, const float* x, std::int64_t count, float* slot) {
  std::int64_t per_scale = elements_per_scale(c);
  std::int64_t scales = (count + per_scale - 1) / per_scale;
  int bits = c.quantize_bits(), per_word = elements_per_word(c);
  long levels = quantize_levels(bits);
  std::uint32_t mask = (1u << bits) - 1;
  float* packed = slot + scales;
  std::fill(packed, packed + (count + per_word - 1) / per_word, to_word(0));
  for (std::int64_t s = 0; s < scales; ++s) {
    std::int64_t begin = s * per_scale, end = std::min(count, begin + per_scale);
    float scale = chunk_scale(x + begin, end - begin, bits);
    slot[s] = scale;
    for (std::int64_t i = begin; i < end; ++i) {
      std::uint32_t code;
      if (bits == 1) {
        code = x[i] >= 0 ? 1u : 0u;
      } else {
        long q = scale > 0 ? std::lround(x[i] / scale) : 0;
        code = static_cast<std::uint32_t>(std::clamp(q, -levels, levels)) & mask;
      }
      std::uint32_t word = from_word(packed[i / per_word]);
      word |= code << ((i % per_word) * bits);
      packed[i / per_word] = to_word(word);
    }
  }
}

void decode_quantized(const Compression& c, const float* slot, std::int64_t count, float* out,
                      bool add) {
  std::int64_t per_scale = elements_per_scale(c);
  std::int64_t scales = (count + per_scale - 1) / per_scale;
  int bits = c.quantize_bits(), per_word = elements_per_word(c);
  const float* packed = slot + scales;
  for (std::int64_t i = 0; i < count; ++i) {
    float scale = slot[i / per_scale];
    std::uint32_t code = from_word(packed[i / per_word]) >> ((i % per_word) * bits);
    float v = bits == 1 ? ((code & 1u) ? scale : -scale)
                        : static_cast<float>(signed_code(code, bits)) * scale;
    out[i] = add ? out[i] + v : v;
  }
}

BucketCodec::BucketCodec(const Compression& c, int workers, std::int64_t count)
    : c_(c), workers_(workers), count_(count), sparse_(c.sparse()) {
  assert(c.on() && c.kind != CompressionKind::kPowersgd);
  assert(count < (std::int64_t{1} << 32));  // indices are 32-bit words
  if (sparse_)
    k_ = sparse_count(c, count);
  else
    slot_ = gathered() ? quantized_words(c, count) : quantized_slot_words(c, count, workers);
}

void vote_signs(const Compression& c, const float* slots, std::int64_t stride, int voters,
                std::int64_t count, float* out) {
  std::int64_t scales = ceil_div(count, elements_per_scale(c));
  for (std::int64_t i = 0; i < count; ++i) {
    int votes = 0;
    for (int s = 0; s < voters; ++s) {
      std::uint32_t word = from_word(slots[s * stride + scales + i / 32]);
      votes += (word >> (i % 32)) & 1u ? 1 : -1;
    }
    out[i] = static_cast<float>((votes > 0) - (votes < 0));
  }
}

std::int64_t BucketCodec::block_of(int rank) const {
  if (gathered()) return segment_of(rank) * slot_;
  return shared() ? 0 : segment_of(rank) * 2 * k_;
}

std::int64_t BucketCodec::scratch_words() const {
  return core::scratch_words(c_, count_, workers_);
}

Span BucketCodec::part(int p) const { return split_part(Span{0, count_}, workers_, p); }

Span BucketCodec::gather_area() const {
  if (sparse_) return {0, 2 * k_ * blocks()};
  if (gathered()) return {0, slot_ * workers_};
  return {2 * slot_ * workers_, slot_ * workers_};
}

Span BucketCodec::send_slot(int p) const { return {p * slot_, slot_}; }
Span BucketCodec::recv_slot(int sender) const { return {(workers_ + sender) * slot_, slot_}; }

void BucketCodec::encode(int rank, std::uint64_t bucket_id, const float* grad, float* scratch,
                         CodecState& st) const {
  std::vector<float> x(grad, grad + count_);
  if (c_.error_feedback) {
    st.residual.resize(count_, 0.0f);
    for (std::int64_t i = 0; i < count_; ++i) x[i] += st.residual[i];
  }
  if (sparse_) {
    encode_sparse(rank, bucket_id, x.data(), scratch + block_of(rank), st);
  } else if (gathered()) {
    float* slot = scratch + block_of(rank);
    encode_part(x.data(), count_, slot);
    if (c_.error_feedback) {
      std::vector<float> sent(count_);
      decode_part(slot, count_, sent.data(), false);
      for (std::int64_t i = 0; i < count_; ++i) st.residual[i] = x[i] - sent[i];
    }
  } else {
    for (int p = 0; p < workers_; ++p)
      encode_part(x.data() + part(p).begin, part(p).count, scratch + send_slot(p).begin);
    if (c_.error_feedback) {
      std::vector<float> sent(count_);
      for (int p = 0; p < workers_; ++p)
        decode_part(scratch + send_slot(p).begin, part(p).count, sent.data() + part(p).begin,
                    false);
      for (std::int64_t i = 0; i < count_; ++i) st.residual[i] = x[i] - sent[i];
    }
  }
  ++st.steps;
}

void BucketCodec::encode_sparse(int rank, std::uint64_t bucket_id, const float* x, float* block,
                                CodecState& st) const {
  std::vector<std::uint32_t> idx;
  if (c_.kind == CompressionKind::kTopk) {
    idx = top_k_indices(x, count_, k_);
  } else {
    idx = random_k_indices(draw_rank(rank), st.steps, bucket_id, count_, k_);
  }
  for (std::int64_t j = 0; j < k_; ++j) {
    block[j] = to_word(idx[j]);
    block[k_ + j] = x[idx[j]];
  }
  if (c_.error_feedback) {
    std::copy(x, x + count_, st.residual.begin());
    for (std::uint32_t i : idx) st.residual[i] = 0;
  }
}

void BucketCodec::owner_reduce(int rank, float* scratch, CodecState& st) const {
  int p = segment_of(rank);
  std::int64_t m = part(p).count;
  std::copy_n(scratch + send_slot(p).begin, slot_, scratch + recv_slot(rank).begin);
  std::vector<float> sum(m, 0.0f);
  for (int q = 0; q < workers_; ++q) decode_part(scratch + recv_slot(q).begin, m, sum.data(), true);
  if (c_.error_feedback) {
    st.owner_residual.resize(m, 0.0f);
    for (std::int64_t i = 0; i < m; ++i) sum[i] += st.owner_residual[i];
  }
  float* result = scratch + gather_area().begin + p * slot_;
  encode_part(sum.data(), m, result);
  if (c_.error_feedback) {
    std::vector<float> sent(m);
    decode_part(result, m, sent.data(), false);
    for (std::int64_t i = 0; i < m; ++i) st.owner_residual[i] = sum[i] - sent[i];
  }
}

void BucketCodec::decode(const float* scratch, float* grad) const {
  if (gathered() && c_.majority_vote) return vote(scratch, grad);
  if (gathered()) {  // every worker's bucket added in segment order into zeros, as the GPU does
    std::fill(grad, grad + count_, 0.0f);
    for (int s = 0; s < workers_; ++s) decode_part(scratch + s * slot_, count_, grad, true);
    return;
  }
  if (!sparse_) {
    for (int p = 0; p < workers_; ++p)
      decode_part(scratch + gather_area().begin + p * slot_, part(p).count, grad + part(p).begin,
                  false);
    return;
  }
  std::fill(grad, grad + count_, 0.0f);
  for (int s = 0; s < blocks(); ++s) {  // in segment order: every worker adds in the same order
    const float* block = scratch + s * 2 * k_;
    for (std::int64_t j = 0; j < k_; ++j) grad[from_word(block[j])] += block[k_ + j];
  }
}

void BucketCodec::vote(const float* scratch, float* grad) const {
  vote_signs(c_, scratch, slot_, workers_, count_, grad);
}

void BucketCodec::encode_part(const float* x, std::int64_t count, float* slot) const {
  encode_quantized(c_, x, count, slot);
}

void BucketCodec::decode_part(const float* slot, std::int64_t count, float* out, bool add) const {
  decode_quantized(c_, slot, count, out, add);
}

}  // namespace scaleout::core
