// PowerSGD (Vogels et al. 2019) on real fp32 numbers: a bucket of c elements seen as a matrix M of
// rows x cols (cols the power of two nearest sqrt(c), rows = ceil(c / cols), the tail zero: the
// assumption where a model lists no layer shapes), compressed to rank r with one step of power
// iteration warm-started from the last step's Q:
//   M = gradient (+ error feedback);  P = M Q;  all-reduce P;  P^ = orthonormal columns of P;
//   Q_w = M^T P^;  all-reduce Q;  result = P^ Q^T;  error feedback = M - P^ Q_w^T;  next Q = Q.
// Each all-reduce sums in worker order as its parts' owners (direct sends of each part to its
// owner, the owner's sum, a ring all-gather of the sums), so every worker, and the reference
// that checks an executed run, computes the same bits. The compressed ring program runs it
// (core/programs/strategies/compressed_ring.cpp); simulated fabrics charge
// core/codecs/compression.hpp's seconds.
#pragma once

#include <cstdint>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/programs/fabric.hpp"

namespace scaleout::core {

// Below this share of its own norm, what is left of a column of P after projecting out the columns
// before it is taken as zero (P of lower rank than r); the GPU codec uses the same bound.
constexpr float kRankTolerance = 1e-4f;

// A bucket's matrix shape and rank (the compression's rank, at most the smaller dimension).
struct LowRankShape {
  std::int64_t rows = 1, cols = 1;
  int rank = 1;
};
LowRankShape low_rank_shape(std::int64_t count, int rank);

// Q's start for a bucket: `size` values in [-1, 1) from a seed of `bucket_id` alone.
std::vector<float> low_rank_first_q(std::uint64_t bucket_id, std::int64_t size);

// What a worker keeps from one step to the next for one bucket.
struct LowRankState {
  std::vector<float> m;      // this step's M; after decode, the error feedback
  std::vector<float> q;      // the last step's Q (cols x r), the power iteration's start
  std::vector<float> p_hat;  // this step's P^ (rows x r)
};

class LowRankCodec {
 public:
  LowRankCodec(const Compression& c, int workers, std::int64_t count);

  const LowRankShape& shape() const { return shape_; }
  bool error_feedback() const { return c_.error_feedback; }
  int workers() const { return workers_; }
  std::int64_t count() const { return count_; }
  // Words of one owner's part of P and of Q (each all-reduced vector padded to n parts).
  std::int64_t p_slot() const { return p_slot_; }
  std::int64_t q_slot() const { return q_slot_; }
  std::int64_t scratch_words() const { return 3 * workers_ * std::max(p_slot_, q_slot_); }
  // The scratch areas of an all-reduce whose parts are `slot` words: this worker's whole vector,
  // the copies of its own part received from each sender, and the owners' sums (all-gathered).
  Span own_area(std::int64_t slot) const { return {0, workers_ * slot}; }
  Span own_part(std::int64_t slot, int part) const { return {part * slot, slot}; }
  Span recv_slot(std::int64_t slot, int sender) const { return {(workers_ + sender) * slot, slot}; }
  Span sum_area(std::int64_t slot) const { return {2 * workers_ * slot, workers_ * slot}; }
  // The part worker `rank` owns (its ring all-gather segment).
  int segment_of(int rank) const { return (rank + 1) % workers_; }

  // M = grad (+ the error feedback); P = M Q into the own area (the first call starts Q from a
  // seed of `bucket_id` alone, the same on every worker).
  void encode_p(std::uint64_t bucket_id, const float* grad, float* scratch, LowRankState& st) const;
  // The owner `rank` sums its part over the workers, in worker order, into the sum area.
  void owner_sum(int rank, std::int64_t slot, float* scratch) const;
  // P^ from the summed P; Q_w = M^T P^ into the own area.
  void encode_q(float* scratch, LowRankState& st) const;
  // The bucket = P^ Q^T (Q summed); the error feedback M - P^ Q_w^T kept; next Q = Q.
  void decode(const float* scratch, float* grad, LowRankState& st) const;

 private:
  Compression c_;
  int workers_;
  std::int64_t count_;
  LowRankShape shape_;
  std::int64_t p_slot_, q_slot_;
};

}  // namespace scaleout::core
