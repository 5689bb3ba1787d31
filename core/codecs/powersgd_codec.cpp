#include "core/codecs/powersgd_codec.hpp"

#include <algorithm>
#include <cmath>

#include "core/codecs/compression.hpp"

namespace scaleout::core {

std::vector<float> low_rank_first_q(std::uint64_t bucket_id, std::int64_t size) {
  std::vector<float> q(static_cast<std::size_t>(size));
  std::uint64_t s = bucket_id * 0x9E3779B97F4A7C15ull + 1;
  for (float& v : q) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;  // xorshift64
    v = static_cast<float>(static_cast<double>(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  }
  return q;
}

namespace {

// Orthonormal columns (Gram-Schmidt, in column order) of `p`, rows x r, row-major. A column that
// (nearly) lies in the span of those before it, what is left of it after projecting them out
// below kRankTolerance of its own norm, becomes zero: normalizing the rounding noise that is left
// would add a direction that is not in P (a gradient of lower rank than r).
void orthonormalize(std::vector<float>& p, std::int64_t rows, int r) {
  for (int k = 0; k < r; ++k) {
    float before = 0;
    for (std::int64_t i = 0; i < rows; ++i) before += p[i * r + k] * p[i * r + k];
    before = std::sqrt(before);
    for (int l = 0; l < k; ++l) {
      float dot = 0;
      for (std::int64_t i = 0; i < rows; ++i) dot += p[i * r + k] * p[i * r + l];
      for (std::int64_t i = 0; i < rows; ++i) p[i * r + k] -= dot * p[i * r + l];
    }
    float norm = 0;
    for (std::int64_t i = 0; i < rows; ++i) norm += p[i * r + k] * p[i * r + k];
    norm = std::sqrt(norm);
    if (norm > kRankTolerance * before) {
      for (std::int64_t i = 0; i < rows; ++i) p[i * r + k] /= norm;
    } else {
      for (std::int64_t i = 0; i < rows; ++i) p[i * r + k] = 0;
    }
  }
}

// out = M x thin (rows x r), or with `transposed` M^T x thin (cols x r); M is rows x cols and
// `thin` r columns wide, both row-major. The sums run in M's row order either way.
void multiply_thin(const std::vector<float>& m, std::int64_t rows, std::int64_t cols,
                   const float* thin, int r, bool transposed, float* out) {
  std::fill_n(out, (transposed ? cols : rows) * r, 0.0f);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      float x = m[i * cols + j];
      float* to = out + (transposed ? j : i) * r;
      const float* by = thin + (transposed ? i : j) * r;
      for (int k = 0; k < r; ++k) to[k] += x * by[k];
    }
}

}  // namespace

LowRankShape low_rank_shape(std::int64_t count, int rank) {
  LowRankShape s;
  auto half =
      std::lround(std::log2(std::sqrt(static_cast<double>(std::max<std::int64_t>(count, 1)))));
  s.cols = std::int64_t{1} << std::max<long>(half, 0);
  s.rows = ceil_div(std::max<std::int64_t>(count, 1), s.cols);
  s.rank = static_cast<int>(std::clamp<std::int64_t>(rank, 1, std::min(s.rows, s.cols)));
  return s;
}

LowRankCodec::LowRankCodec(const Compression& c, int workers, std::int64_t count)
    : c_(c), workers_(workers), count_(count), shape_(low_rank_shape(count, c.rank)) {
  p_slot_ = ceil_div(shape_.rows * shape_.rank, workers);
  q_slot_ = ceil_div(shape_.cols * shape_.rank, workers);
}

void LowRankCodec::encode_p(std::uint64_t bucket_id, const float* grad, float* scratch,
                            LowRankState& st) const {
  const std::int64_t rows = shape_.rows, cols = shape_.cols;
  const int r = shape_.rank;
  bool carried = c_.error_feedback && !st.m.empty();
  st.m.resize(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows * cols; ++i)
    st.m[i] = (i < count_ ? grad[i] : 0.0f) + (carried ? st.m[i] : 0.0f);
  if (st.q.empty()) st.q = low_rank_first_q(bucket_id, cols * r);
  float* p = scratch + own_area(p_slot_).begin;
  std::fill_n(p, own_area(p_slot_).count, 0.0f);  // the padding too
  multiply_thin(st.m, rows, cols, st.q.data(), r, false, p);
}

void LowRankCodec::owner_sum(int rank, std::int64_t slot, float* scratch) const {
  int part = segment_of(rank);
  float* sum = scratch + sum_area(slot).begin + part * slot;
  std::fill_n(sum, slot, 0.0f);
  for (int w = 0; w < workers_; ++w) {
    const float* from = scratch + (w == rank ? own_part(slot, part) : recv_slot(slot, w)).begin;
    for (std::int64_t i = 0; i < slot; ++i) sum[i] += from[i];
  }
}

void LowRankCodec::encode_q(float* scratch, LowRankState& st) const {
  const std::int64_t rows = shape_.rows, cols = shape_.cols;
  const int r = shape_.rank;
  const float* summed = scratch + sum_area(p_slot_).begin;
  st.p_hat.assign(summed, summed + rows * r);
  orthonormalize(st.p_hat, rows, r);
  float* q = scratch + own_area(q_slot_).begin;
  std::fill_n(q, own_area(q_slot_).count, 0.0f);  // the padding too
  multiply_thin(st.m, rows, cols, st.p_hat.data(), r, true, q);
}

void LowRankCodec::decode(const float* scratch, float* grad, LowRankState& st) const {
  const std::int64_t rows = shape_.rows, cols = shape_.cols;
  const int r = shape_.rank;
  const float* q = scratch + sum_area(q_slot_).begin;
  const float* mine = scratch + own_area(q_slot_).begin;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      float all = 0, own = 0;
      for (int k = 0; k < r; ++k) {
        all += st.p_hat[i * r + k] * q[j * r + k];
        own += st.p_hat[i * r + k] * mine[j * r + k];
      }
      std::int64_t e = i * cols + j;
      if (e < count_) grad[e] = all;
      st.m[e] -= own;  // what this worker's share lost: carried when error feedback is on
    }
  if (!c_.error_feedback) st.m.clear();
  st.q.assign(q, q + cols * r);
}

}  // namespace scaleout::core
