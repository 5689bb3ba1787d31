#include "core/codecs/compression_reference.hpp"

#include <algorithm>

#include "core/codecs/ps_codec.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/programs/strategies/ps_node_pieces.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

CompressionReference::CompressionReference(const Plan& plan, const StepModel& model,
                                           const CheckValues& values)
    : compression_(plan.training.compression),
      workers_(plan.training.workers),
      servers_(plan.strategy.kind == StrategyKind::kPs ? plan.strategy.ps_servers : 0),
      by_node_(servers_ > 0 && plan.strategy.ps_local_aggregation == PsAggregation::kNode),
      values_(values),
      expected_(model.elements) {
  if (by_node_) groups_ = group_by_node(plan_ranks(plan).layout);
  for (const auto& b : model.buckets) buckets_.push_back(b.span);
}

const std::vector<float>& CompressionReference::next_step() {
  for (Span b : buckets_) bucket_step(b);
  return expected_;
}

namespace {

// Every worker's part to its owner, the owner's sum, the sums to every worker: the all-reduce of
// core/codecs/powersgd_codec.hpp on every worker's scratch at once.
void sum_in_worker_order(const LowRankCodec& codec, std::int64_t slot,
                         std::vector<std::vector<float>>& scratch) {
  int n = static_cast<int>(scratch.size());
  for (int owner = 0; owner < n; ++owner) {
    int part = codec.segment_of(owner);
    for (int sender = 0; sender < n; ++sender) {
      if (sender == owner) continue;
      Span from = codec.own_part(slot, part), to = codec.recv_slot(slot, sender);
      std::copy_n(scratch[sender].begin() + from.begin, from.count,
                  scratch[owner].begin() + to.begin);
    }
    codec.owner_sum(owner, slot, scratch[owner].data());
  }
  for (int owner = 0; owner < n; ++owner) {
    std::int64_t at = codec.sum_area(slot).begin + codec.segment_of(owner) * slot;
    for (int w = 0; w < n; ++w)
      if (w != owner) std::copy_n(scratch[owner].begin() + at, slot, scratch[w].begin() + at);
  }
}

}  // namespace

void CompressionReference::low_rank_step(Span bucket) {
  LowRankCodec codec(compression_, workers_, bucket.count);
  auto id = static_cast<std::uint64_t>(bucket.begin);
  std::vector<std::vector<float>> scratch(workers_,
                                          std::vector<float>(codec.scratch_words(), 0.0f));
  std::vector<float> grad(bucket.count);
  for (int r = 0; r < workers_; ++r) {
    for (std::int64_t j = 0; j < bucket.count; ++j) grad[j] = values_.value(r, bucket.begin + j);
    codec.encode_p(id, grad.data(), scratch[r].data(), low_rank_[{r, id}]);
  }
  sum_in_worker_order(codec, codec.p_slot(), scratch);
  for (int r = 0; r < workers_; ++r) codec.encode_q(scratch[r].data(), low_rank_[{r, id}]);
  sum_in_worker_order(codec, codec.q_slot(), scratch);
  // Every worker decodes the same sums; each keeps its own error feedback.
  for (int r = 0; r < workers_; ++r)
    codec.decode(scratch[r].data(), r == 0 ? expected_.data() + bucket.begin : grad.data(),
                 low_rank_[{r, id}]);
}

// Over the parameter server: each shard's pushes as every worker encodes them, the server's
// combination, and the pull (dense, or decoded).
void CompressionReference::ps_step(Span bucket) {
  std::vector<float> grad;
  for (int j = 0; j < servers_; ++j) {
    Span shard = split_part(bucket, servers_, j);
    auto id = static_cast<std::uint64_t>(shard.begin);
    PsShardCodec codec(compression_, workers_, shard.count);
    std::vector<float> pushes(codec.server_words(), 0.0f);
    grad.resize(shard.count);
    for (int r = 0; r < workers_; ++r) {
      for (std::int64_t i = 0; i < shard.count; ++i) grad[i] = values_.value(r, shard.begin + i);
      codec.encode(r, id, grad.data(), pushes.data() + r * codec.push_words(), states_[{r, id}]);
    }
    codec.reduce(pushes.data(), expected_.data() + shard.begin, server_states_[id]);
    if (!codec.dense_pull())
      codec.decode(pushes.data() + workers_ * codec.push_words(), expected_.data() + shard.begin,
                   states_[{0, id}]);
  }
}

// Aggregated per node: each node's sum of a piece (exact: core/programs/check_values.hpp) encoded
// by the worker holding it, one contribution per node combined by the piece's server, the pull
// decoded.
void CompressionReference::node_ps_step(Span bucket) {
  int nodes = groups_.nodes();
  std::vector<float> sum;
  for (const NodePiece& p : node_pieces(groups_, bucket, servers_)) {
    auto id = static_cast<std::uint64_t>(p.span.begin);
    PsShardCodec codec(compression_, nodes, p.span.count);
    std::vector<float> pushes(codec.server_words(), 0.0f);
    for (int n = 0; n < nodes; ++n) {
      sum.assign(p.span.count, 0.0f);
      for (int r : groups_.members[n])
        for (std::int64_t i = 0; i < p.span.count; ++i)
          sum[i] += values_.value(r, p.span.begin + i);
      int owner = p.owners[n];
      codec.encode(owner, id, sum.data(), pushes.data() + n * codec.push_words(),
                   states_[{owner, id}]);
    }
    codec.reduce(pushes.data(), expected_.data() + p.span.begin, server_states_[id]);
    if (!codec.dense_pull())
      codec.decode(pushes.data() + nodes * codec.push_words(), expected_.data() + p.span.begin,
                   states_[{p.owners[0], id}]);
  }
}

// Shared random-k: every worker drew the same indices; the all-reduce sums the values (exactly:
// core/programs/check_values.hpp), and each worker writes them into its zeroed bucket.
void CompressionReference::shared_sum(const BucketCodec& codec,
                                      std::vector<std::vector<float>>& scratch, Span bucket) {
  Span values = codec.values_area();
  for (int r = 1; r < workers_; ++r)
    for (std::int64_t j = 0; j < values.count; ++j)
      scratch[0][values.begin + j] += scratch[r][values.begin + j];
  codec.decode(scratch[0].data(), expected_.data() + bucket.begin);
}

void CompressionReference::bucket_step(Span bucket) {
  if (by_node_) return node_ps_step(bucket);
  if (servers_ > 0) return ps_step(bucket);
  if (compression_.kind == CompressionKind::kPowersgd) return low_rank_step(bucket);
  BucketCodec codec(compression_, workers_, bucket.count);
  auto id = static_cast<std::uint64_t>(bucket.begin);
  std::int64_t words = codec.scratch_words();
  // Each worker's scratch after its own encoding.
  std::vector<std::vector<float>> scratch(workers_, std::vector<float>(words, 0.0f));
  std::vector<float> grad(bucket.count);
  for (int r = 0; r < workers_; ++r) {
    for (std::int64_t j = 0; j < bucket.count; ++j) grad[j] = values_.value(r, bucket.begin + j);
    codec.encode(r, id, grad.data(), scratch[r].data(), states_[{r, id}]);
  }
  if (codec.shared()) return shared_sum(codec, scratch, bucket);
  // What the all-gather leaves on every worker: each worker's segment from its owner.
  std::vector<float> gathered(words, 0.0f);
  Span area = codec.gather_area();
  std::int64_t segment = area.count / workers_;
  for (int owner = 0; owner < workers_; ++owner) {
    int s = codec.segment_of(owner);
    if (codec.owners()) {
      for (int sender = 0; sender < workers_; ++sender) {
        if (sender == owner) continue;
        Span from = codec.send_slot(s), to = codec.recv_slot(sender);
        std::copy_n(scratch[sender].begin() + from.begin, from.count,
                    scratch[owner].begin() + to.begin);
      }
      codec.owner_reduce(owner, scratch[owner].data(), states_[{owner, id}]);
    }
    std::int64_t at = area.begin + s * segment;
    std::copy_n(scratch[owner].begin() + at, segment, gathered.begin() + at);
  }
  codec.decode(gathered.data(), expected_.data() + bucket.begin);
}

}  // namespace scaleout::core
