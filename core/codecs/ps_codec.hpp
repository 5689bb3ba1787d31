// Gradient compression over the synchronous parameter server
// (core/programs/strategies/compressed_ps.cpp): what a worker pushes for one shard of a bucket,
// what the shard's server makes of the pushes, and what the workers pull.
//  - topk, randomk: each worker pushes the shard's k = round(density x shard) largest (or drawn)
//    elements as (index, value) pairs, indices within the shard; the server adds the workers'
//    blocks in worker order into a zeroed shard, and the workers pull the dense sum (summed sparse
//    vectors are not sparse).
//  - randomk with shared indices: every worker draws the same k indices (worker 0's seed), pushes
//    the k values alone; the server sums them in worker order and the workers pull the k sums,
//    written into the zeroed shard at the drawn indices (GRACE's and BytePS's random-k).
//  - int8, onebit, quantize: each worker pushes its encoded shard; the server decodes the
//    workers' encodings, sums them in worker order, adds its own error feedback and encodes the
//    sum, which the workers pull and decode (1-bit Adam's compressed all-reduce with the server as
//    the owner).
//  - onebit with majority_vote (signSGD): the server counts each element's signs and sends back
//    the vote, as 1-bit codes when the workers are odd (no tie) and as 2-bit codes otherwise (a
//    tie is 0); no error feedback anywhere.
// Error feedback is kept per worker and shard, and at the server per shard. The encodings are
// core/codecs/compression_codec.hpp's and core/codecs/codec_steps.hpp's.
#pragma once

#include <cstdint>

#include "core/codecs/compression_codec.hpp"
#include "core/plan/plan.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

// Top-k and per-worker random-k over the PS: the workers pull the dense sum into their gradients
// (summed sparse vectors are not sparse) rather than words they decode.
inline bool ps_dense_pull(const Compression& c) { return c.sparse() && !c.shared_draw(); }

class PsShardCodec {
 public:
  // REQUIRES: c.on(), c.kind is not powersgd.
  PsShardCodec(const Compression& c, int workers, std::int64_t count);

  bool dense_pull() const { return ps_dense_pull(c_); }
  // Words a worker pushes for the shard, and the words it pulls into its scratch (a dense pull:
  // none, the sum lands in the gradient).
  std::int64_t push_words() const { return push_; }
  std::int64_t pull_words() const { return pull_; }
  // Words a server needs beyond its shard: one push per worker, then the result pulled.
  std::int64_t server_words() const { return workers_ * push_ + pull_words(); }

  // Worker `rank` encodes its shard `grad` (count elements) into `push`; `shard_id` seeds
  // random-k. Updates st's residual and steps.
  void encode(int rank, std::uint64_t shard_id, const float* grad, float* push,
              CodecState& st) const;
  // The server combines the pushes (`pushes`, worker w's at w x push_words()): a dense pull's
  // sum into `shard`; otherwise what the workers pull into `pushes + workers x push_words()`.
  void reduce(float* pushes, float* shard, CodecState& server) const;
  // A worker decodes what it pulled into its shard (all but a dense pull); `st` is the state its
  // encode of this step updated.
  void decode(const float* pulled, float* grad, const CodecState& st) const;

 private:
  Compression c_;
  Compression pulled_;  // the pull's codes (quantized kinds): c_, or 2-bit for an even vote
  int workers_;
  std::int64_t count_;
  bool sparse_, shared_;
  std::int64_t k_ = 0;
  std::int64_t push_ = 0, pull_ = 0;
};

// Seconds the codec work of one shard of `count` elements takes at the device's compressor rates:
// a worker's encoding, the server's combination of the pushes, a worker's decoding of the pull.
struct PsCodecSeconds {
  double encode = 0, reduce = 0, decode = 0;
};
PsCodecSeconds ps_codec_seconds(const Compression& c, const DeviceSpec& device, std::int64_t count,
                                int workers);

// One bucket of `count` elements over the compressed PS aggregated per node
// (core/programs/strategies/compressed_ps_local.cpp), as worker 0 and the servers see it.
struct PsNodeBucket {
  std::int64_t part_elements = 0;         // worker 0's part after its node's reduce-scatter
  int node_workers = 1;                   // the workers of worker 0's node
  double push_bytes = 0, pull_bytes = 0;  // worker 0's encoded pieces to the servers, and back
  double worker_codec_s = 0;              // the busiest worker's encoding and decoding
  double server_codec_s = 0;              // the busiest server's combination
};
PsNodeBucket ps_node_bucket(const Plan& plan, const RankLayout& layout, std::int64_t count);

// The rates a compressed PS's servers combine the pushes at: the device's compressor rates, or on
// CPU server hosts (`server_hosts: cpu`) one host core's codec pass (`host.codec_rate`).
DeviceSpec ps_server_codec_device(const Plan& plan);

// Scratch words a rank of a compressed synchronous PS needs for a bucket of `count` elements:
// the largest of a worker's pushes of every shard and a server's words.
std::int64_t ps_scratch_words(const Compression& c, std::int64_t count, int workers, int servers);
// The same aggregated per node (core/programs/strategies/compressed_ps_local.cpp): a worker's
// encodings of its pieces, or a server's one contribution per node of each of its pieces and their
// sums.
std::int64_t ps_node_scratch_words(const Compression& c, const RankLayout& layout,
                                   std::int64_t count);

}  // namespace scaleout::core
