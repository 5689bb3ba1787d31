// What every worker of an executed compressed run must hold after each step, computed from what
// each worker's compressor emits: every worker's known gradient (core/programs/check_values.hpp) is
// encoded with that worker's own carried state (error feedback, random-k's step), and the emitted
// blocks or parts are combined as the exchange combines them (the same
// core/codecs/compression_codec.hpp code, in the same order, so the expected values are bit for bit
// those of a correct exchange). A run that loses a block, mixes up owners or drops the error
// feedback differs from it. Over the synchronous parameter server the servers are the owners
// (core/codecs/ps_codec.hpp); aggregated per node, each node's exact sum is its contribution
// (core/programs/strategies/ps_node_pieces.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "core/codecs/compression_codec.hpp"
#include "core/codecs/powersgd_codec.hpp"
#include "core/model/step_model.hpp"
#include "core/plan/plan.hpp"
#include "core/programs/check_values.hpp"
#include "core/programs/strategies/node_groups.hpp"

namespace scaleout::core {

class CompressionReference {
 public:
  // REQUIRES: plan.training.compression.on(); `model`'s buckets are the run's.
  CompressionReference(const Plan& plan, const StepModel& model, const CheckValues& values);

  // The gradient after the next step's exchange (steps are taken in order, from 0).
  const std::vector<float>& next_step();

 private:
  void bucket_step(Span bucket);
  void low_rank_step(Span bucket);
  void ps_step(Span bucket);
  void node_ps_step(Span bucket);
  void shared_sum(const BucketCodec& codec, std::vector<std::vector<float>>& scratch, Span bucket);

  Compression compression_;
  int workers_;
  int servers_;   // the synchronous PS's shards; 0 over the ring
  bool by_node_;  // the PS aggregated per node (BytePS's layout)
  NodeGroups groups_;
  std::vector<Span> buckets_;
  const CheckValues& values_;
  std::vector<float> expected_;
  std::map<std::pair<int, std::uint64_t>, CodecState> states_;  // (worker, bucket) -> state
  std::map<std::pair<int, std::uint64_t>, LowRankState> low_rank_;
  std::map<std::uint64_t, CodecState> server_states_;  // shard -> its server's state
};

}  // namespace scaleout::core
