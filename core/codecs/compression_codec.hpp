// The compressors themselves, on real fp32 numbers: what one worker does to a bucket before and
// after the exchange, written once. The compressed ring program runs them on an executed fabric's
// buffer (core/programs/strategies/compressed_ring.cpp), and the reference that checks an executed
// run (core/codecs/compression_reference.hpp) runs them for every worker; simulated fabrics never
// call them and charge core/codecs/compression.hpp's codec seconds instead.
//
// Selection is deterministic: top-k keeps the largest magnitudes, ties going to the lower index
// (DGC's sampled threshold, then an exact selection: core/codecs/codec_steps.hpp); random-k draws
// from a seed of (worker, step, bucket), or of (step, bucket) alone when the indices are shared;
// int8 scales each chunk by max|x| / 127 and rounds to nearest (quantize with b bits: by max|x| /
// (2^(b-1) - 1), codes of b bits); onebit (and quantize 1 bit) sends signs with one scale per
// chunk, the mean |x| (the scale that minimizes the chunk's squared error), each folded in a GPU
// block's order (core/codecs/codec_steps.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/programs/fabric.hpp"

namespace scaleout::core {

// A quantized kind's encoding of `count` elements into a slot (one fp32 scale per chunk, then the
// packed codes: core/codecs/compression.hpp), and its decoding into `out` (added to it with `add`).
void encode_quantized(const Compression& c, const float* x, std::int64_t count, float* slot);
void decode_quantized(const Compression& c, const float* slot, std::int64_t count, float* out,
                      bool add);
// signSGD's majority vote over `voters` 1-bit slots of `count` elements, `stride` words apart
// (scales, then signs): each element +1 or -1 as most voters sent, 0 on a tie.
void vote_signs(const Compression& c, const float* slots, std::int64_t stride, int voters,
                std::int64_t count, float* out);

// What a worker keeps from one step to the next for one bucket.
struct CodecState {
  std::vector<float> residual;        // error feedback: what compression dropped, added next step
  std::vector<float> owner_residual;  // quantized kinds: the owner's error feedback for its part
  std::uint64_t steps = 0;            // encodes so far (random-k's seed)
  std::vector<std::uint32_t> drawn;  // shared random-k over a PS: this step's indices, for the pull
};

// One bucket's compressed exchange over `workers` workers: where each piece sits in the scratch
// words (offsets relative to the scratch's start) and the local work around the transfers.
class BucketCodec {
 public:
  BucketCodec(const Compression& c, int workers, std::int64_t count);

  bool sparse() const { return sparse_; }
  // Random-k with shared indices: one block, its values all-reduced (core/codecs/compression.hpp).
  bool shared() const { return c_.shared_draw(); }
  // Sparse: the blocks the exchange leaves in the scratch (n, or 1 when shared) and where worker
  // `rank` writes its own; the worker whose random-k draw `rank` makes (worker 0's when shared).
  int blocks() const { return shared() ? 1 : workers_; }
  // Where worker `rank` writes its own block (sparse) or encoded bucket (all-gathered).
  std::int64_t block_of(int rank) const;
  // Quantized with `exchange: allgather`: every worker's whole bucket encoded into one slot.
  bool gathered() const { return c_.gathered(); }
  // 1-bit Adam's all-reduce: parts sent to their owners, who sum and re-encode them.
  bool owners() const { return !sparse_ && !gathered(); }
  int draw_rank(int rank) const { return shared() ? 0 : rank; }
  // Shared random-k: the k values that are all-reduced (after the block's k indices).
  Span values_area() const { return {k_, k_}; }
  const Compression& compression() const { return c_; }
  int workers() const { return workers_; }
  std::int64_t count() const { return count_; }
  std::int64_t k() const { return k_; }  // sparse: elements kept
  std::int64_t slot() const {
    return slot_;
  }  // quantized: words per slot (all-gathered: of
     // the whole bucket)
  // The part p of the bucket (quantized kinds encode each part on its own).
  Span part(int p) const;
  std::int64_t scratch_words() const;
  // The part (quantized) or block (sparse) worker `rank` owns: its ring all-gather segment.
  int segment_of(int rank) const { return (rank + 1) % workers_; }
  // The all-gathered area: sparse, the n blocks; quantized, the n result slots.
  Span gather_area() const;
  // Quantized: this worker's encoding of part p; the copy of the owned part sent by `sender`.
  Span send_slot(int part) const;
  Span recv_slot(int sender) const;

  // Encodes worker `rank`'s bucket `grad` (count elements) into `scratch`: sparse, its block;
  // quantized, a send slot per part. Updates st's residual (with error feedback) and steps.
  void encode(int rank, std::uint64_t bucket_id, const float* grad, float* scratch,
              CodecState& st) const;
  // Quantized: the owner `rank` decodes the n received copies of its part in worker order, sums
  // them, adds its residual, and encodes the sum into its result slot.
  void owner_reduce(int rank, float* scratch, CodecState& st) const;
  // Writes the exchanged bucket into `grad`: sparse, the n blocks added into zeros; quantized,
  // every part decoded from its result slot; all-gathered, the n buckets added into zeros (or
  // their signs' majority vote).
  void decode(const float* scratch, float* grad) const;

 private:
  void encode_sparse(int rank, std::uint64_t bucket_id, const float* x, float* block,
                     CodecState& st) const;
  void encode_part(const float* x, std::int64_t count, float* slot) const;
  // signSGD's majority vote over the n all-gathered slots of signs: each element +1, -1 or (a
  // tie) 0, counted from the codes whatever the scales.
  void vote(const float* scratch, float* grad) const;
  void decode_part(const float* slot, std::int64_t count, float* out, bool add) const;

  Compression c_;
  int workers_;
  std::int64_t count_;
  bool sparse_;
  std::int64_t k_ = 0;     // sparse: elements kept
  std::int64_t slot_ = 0;  // quantized: words per slot
};

}  // namespace scaleout::core
