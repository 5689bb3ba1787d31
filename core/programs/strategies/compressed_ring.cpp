// The ring with gradient compression (training.compression; core/codecs/compression.hpp has the
// wire formats). Sparse kinds all-gather each worker's (index, value) block around the ring; summed
// sparse vectors are not sparse, so there is no reduce-scatter. Random-k with shared indices
// all-reduces the values alone: every worker selected the same elements. Quantized kinds run 1-bit
// Adam's compressed all-reduce: direct sends of each encoded part to its owner (n-1 rounds, round s
// to rank + s), the owner's decode-sum-encode, then a ring all-gather of the encoded results; with
// `exchange: allgather` every worker's encoded bucket is all-gathered instead. The encoding and
// decoding run as local work: real on executed fabrics, priced at the device's compressor rates on
// simulated ones, where the work takes the device from backward's compute (sim/sim_fabric.cpp).
#include "core/codecs/codec_backend.hpp"
#include "core/codecs/compression.hpp"
#include "core/codecs/compression_codec.hpp"
#include "core/codecs/powersgd_codec.hpp"
#include "core/model/step_model.hpp"
#include "core/programs/strategies/ring_phases.hpp"
#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class CompressedRing : public StrategyProgram {
 public:
  CompressedRing(const Plan& plan, int workers)
      : compression_(plan.training.compression),
        device_(plan.cluster.device),
        workers_(workers),
        scratch_begin_(gradient_elements(plan)),
        host_codecs_(make_host_codecs()) {}

  void run(Fabric& fabric, Span bucket) override {
    if (compression_.kind == CompressionKind::kPowersgd) return run_low_rank(fabric, bucket);
    BucketCodec codec(compression_, workers_, bucket.count);
    const Start at = start(fabric, bucket);
    CodecBackend& codecs = codecs_of(fabric);
    fabric.device().local_work(at.cost.encode, [&](float* words) {
      codecs.encode(codec, at.rank, at.id, words + bucket.begin, words + scratch_begin_);
    });
    RingGroup ring = strided_ring(0, 1, workers_, at.rank);
    if (codec.owners()) {
      to_owners(
          fabric, [&](int to) { return codec.send_slot(codec.segment_of(to)); },
          [&](int from) { return codec.recv_slot(from); });
      fabric.device().local_work(at.cost.owner, [&](float* words) {
        codecs.owner_reduce(codec, at.rank, at.id, words + scratch_begin_);
      });
    }
    if (codec.shared())
      ring_allreduce(fabric, ring, at_scratch(codec.values_area()));
    else
      ring_allgather(fabric, ring, at_scratch(codec.gather_area()));
    fabric.device().local_work(at.cost.decode, [&](float* words) {
      codecs.decode(codec, words + scratch_begin_, words + bucket.begin);
    });
  }

  // PowerSGD: P's all-reduce, the orthogonalization and Q, Q's all-reduce, the decode.
  void run_low_rank(Fabric& fabric, Span bucket) {
    LowRankCodec codec(compression_, workers_, bucket.count);
    const Start at = start(fabric, bucket);
    CodecBackend& codecs = codecs_of(fabric);
    fabric.device().local_work(at.cost.encode, [&](float* words) {
      codecs.encode_p(codec, at.rank, at.id, words + bucket.begin, words + scratch_begin_);
    });
    double share = at.cost.owner / static_cast<double>(codec.p_slot() + codec.q_slot());
    sum_in_worker_order(fabric, codec, codec.p_slot(), share * codec.p_slot());
    fabric.device().local_work(at.cost.between, [&](float* words) {
      codecs.encode_q(codec, at.rank, at.id, words + scratch_begin_);
    });
    sum_in_worker_order(fabric, codec, codec.q_slot(), share * codec.q_slot());
    fabric.device().local_work(at.cost.decode, [&](float* words) {
      codecs.decode_low_rank(codec, at.rank, at.id, words + scratch_begin_, words + bucket.begin);
    });
  }

  // An all-reduce whose sums every worker computes alike: each part sent to its owner (n-1
  // rounds, round s to rank + s), the owner's sum in worker order, a ring all-gather of the sums.
  void sum_in_worker_order(Fabric& fabric, const LowRankCodec& codec, std::int64_t slot,
                           double owner_seconds) {
    int rank = fabric.rank();
    to_owners(
        fabric, [&](int to) { return codec.own_part(slot, codec.segment_of(to)); },
        [&](int from) { return codec.recv_slot(slot, from); });
    CodecBackend& codecs = codecs_of(fabric);
    fabric.device().local_work(owner_seconds, [&](float* words) {
      codecs.owner_sum(codec, rank, slot, words + scratch_begin_);
    });
    ring_allgather(fabric, strided_ring(0, 1, workers_, rank), at_scratch(codec.sum_area(slot)));
  }

  std::string describe() const override {
    bool sparse = compression_.sparse();
    if (compression_.kind == CompressionKind::kPowersgd)
      return "ring with powersgd compression: all-reduces of P and Q (parts to their owners, "
             "owners sum in worker order, all-gather of the sums)";
    if (compression_.shared_draw())
      return "ring with randomk compression, shared indices: all-reduce of the selected values";
    if (compression_.gathered())
      return std::string("ring with ") + compression_name(compression_.kind) +
             " compression: all-gather of every worker's encoded bucket";
    return std::string("ring with ") + compression_name(compression_.kind) +
           (sparse ? " compression: all-gather of (index, value) blocks"
                   : " compression: direct sends of encoded parts to their owners, owners sum "
                     "and re-encode, all-gather of the encoded parts");
  }

 private:
  Span at_scratch(Span s) const { return {scratch_begin_ + s.begin, s.count}; }
  // What both exchanges start from: this rank, the bucket's id (its first element) and the codec
  // work's modelled seconds.
  struct Start {
    int rank;
    std::uint64_t id;
    CodecSeconds cost;
  };
  Start start(Fabric& fabric, Span bucket) const {
    return {fabric.rank(), static_cast<std::uint64_t>(bucket.begin),
            codec_seconds(compression_, device_, bucket.count, workers_)};
  }
  // The fabric's own codecs where its words are not in host memory (a GPU's), else the host's.
  CodecBackend& codecs_of(Fabric& fabric) {
    CodecBackend* device = fabric.device().device_codecs();
    return device ? *device : *host_codecs_;
  }

  // Each worker's part to its owner: n-1 rounds, round s sending `part_for(rank + s)` to rank + s
  // and receiving into `slot_from(rank - s)` (scratch offsets).
  template <typename PartFor, typename SlotFrom>
  void to_owners(Fabric& fabric, PartFor part_for, SlotFrom slot_from) {
    int rank = fabric.rank();
    for (int s = 1; s < workers_; ++s) {
      int to = (rank + s) % workers_, from = (rank - s + workers_) % workers_;
      fabric.exchange(to, from,
                      {at_scratch(part_for(to)), at_scratch(slot_from(from)), Combine::kReplace});
    }
  }

  Compression compression_;
  DeviceSpec device_;
  int workers_;
  std::int64_t scratch_begin_;
  std::unique_ptr<CodecBackend> host_codecs_;  // each (rank, bucket)'s state, made on first use
};

}  // namespace

std::unique_ptr<StrategyProgram> make_compressed_ring(const Plan& plan, const RankLayout& layout) {
  return std::make_unique<CompressedRing>(plan, layout.workers);
}

}  // namespace scaleout::core
