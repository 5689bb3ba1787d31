#include "core/programs/strategies/model_parallel_training.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/model/token_exchange.hpp"
#include "core/programs/group_fabric.hpp"
#include "core/programs/receive_ahead.hpp"
#include "core/programs/strategies/all_to_all.hpp"
#include "core/programs/strategies/model_parallel_rank.hpp"
#include "core/programs/strategies/ring_phases.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

namespace {

using Kind = PipeOp::Kind;
using OpKey = std::tuple<int, int, int>;  // kind, micro-batch, chunk

OpKey key(const PipeOp& op) { return {static_cast<int>(op.kind), op.microbatch, op.chunk}; }

std::int64_t elements(double bytes, int bytes_per_element) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(bytes / bytes_per_element)));
}

// The receives of an iteration from the neighbouring stages, posted in the order each neighbour
// sends and at most `window` ahead of what the stage has taken: transfers flow while the stage
// computes, and a simulator does not hold a pending receive for every micro-batch at once. With
// a window of 0 each is posted when the stage needs it (with those the neighbour sent before it).
// A fabric that starts a neighbour's transfers as they are sent (ReceiveAhead::receive_ahead_from,
// `ahead`; null where the fabric offers none) needs none ahead: the receives of what the
// neighbour already sent are posted at once, and the fabric stops once the iteration's last is
// taken, so that the next iteration's wait as before.
class Inbox {
 public:
  using SlotFn = std::function<Span(const OpKey&)>;  // where each op's input lands
  Inbox(Fabric& fabric, ReceiveAhead* ahead, SlotFn slot, std::size_t window)
      : fabric_(fabric), ahead_(ahead), slot_(std::move(slot)), window_(window) {}

  void add_sender(int peer, std::vector<OpKey> order) {
    for (const OpKey& k : order) sender_of_[k] = senders_.size();
    Sender s{peer, std::move(order)};
    std::size_t ahead = window_;
    if (window_ > 0 && !s.order.empty() && ahead_)
      if (std::optional<std::size_t> sent = ahead_->receive_ahead_from(peer)) {
        s.started_when_sent = true;
        ahead = *sent;
      }
    senders_.push_back(std::move(s));
    for (std::size_t i = 0; i < ahead; ++i) post_next(senders_.size() - 1);
  }

  // Posts the receive of `op`'s input (and those its neighbour sends before it), without waiting:
  // a pair's two receives then wait in one group.
  void post(const PipeOp& op) {
    auto from = sender_of_.find(key(op));
    if (from == sender_of_.end()) return;
    while (!posted_.count(key(op))) post_next(from->second);
  }

  // Waits for `op`'s input, if a neighbour sends it one, and keeps that neighbour's window full.
  // Returns the sending stage's index among the senders (-1: no input).
  int take(const PipeOp& op) {
    auto from = sender_of_.find(key(op));
    if (from == sender_of_.end()) return -1;
    post(op);
    Fabric::Handle handle = posted_[key(op)];
    posted_.erase(key(op));
    fabric_.wait_all({handle});
    Sender& s = senders_[from->second];
    ++s.taken;
    if (s.started_when_sent) {
      if (s.taken == s.order.size()) ahead_->stop_receiving_ahead_from(s.peer);
    } else {
      while (s.next < s.order.size() && s.next < s.taken + window_) post_next(from->second);
    }
    return static_cast<int>(from->second);
  }

 private:
  struct Sender {
    int peer;
    std::vector<OpKey> order;
    std::size_t next = 0;   // receives posted
    std::size_t taken = 0;  // and waited for
    bool started_when_sent = false;
  };
  void post_next(std::size_t s) {
    Sender& from = senders_[s];
    if (from.next == from.order.size()) return;
    const OpKey& k = from.order[from.next++];
    posted_[k] = fabric_.post_recv(from.peer, slot_(k), Combine::kReplace);
  }

  Fabric& fabric_;
  ReceiveAhead* ahead_;
  SlotFn slot_;
  std::size_t window_;
  std::vector<Sender> senders_;
  std::map<OpKey, std::size_t> sender_of_;
  std::map<OpKey, Fabric::Handle> posted_;
};

}  // namespace

ModelParallelTraining::ModelParallelTraining(const Plan& plan, std::vector<int> rank_node,
                                             bool receive_ahead)
    : plan_(plan),
      rank_node_(std::move(rank_node)),
      receive_ahead_(receive_ahead),
      state_(ParallelState::of(plan)),
      work_(model_parallel_work(plan, state_.split())) {
  const ModelSplit& s = state_.split();
  stages_ = s.pipeline;
  microbatches_ = s.microbatches;
  chunks_ = s.chunks;
  // At most a forward, a backward and a weight pass of each micro-batch and chunk.
  ops_per_stage_ =
      static_cast<std::size_t>(splits_backward(s.schedule) ? 3 : 2) * microbatches_ * chunks_;
  int bpe = plan.training.gradient_bytes_per_element;
  activation_elements_ = elements(work_.activation_bytes, bpe);
  // ZeRO-2's step-end gather collects the whole gradient's parameters; ZeRO-3 has none.
  gradient_elements_ =
      elements(work_.gradient_bytes * (work_.reduce_per_microbatch ? 1.0 : work_.data_volume), bpe);
  // Each rank of a tensor group sends its 1/t of the activations (Megatron's scatter-gather).
  transfer_elements_ =
      std::max<std::int64_t>(1, activation_elements_ / transfer_parts(plan, s.tensor));
  int expert = plan.parallelism->expert;
  if (expert > 1) {
    auto whole_segments = [&](double bytes) {
      return (elements(bytes, bpe) + expert - 1) / expert * expert;
    };
    dispatch_elements_ = whole_segments(work_.dispatch_bytes);
    combine_elements_ = whole_segments(work_.combine_bytes);
    expert_gradient_elements_ = elements(work_.expert_gradient_bytes * work_.data_volume, bpe);
  }
  if (work_.context > 1) context_block_elements_ = elements(work_.context_block_bytes, bpe);
  if (work_.tp_comm_overlap)
    tensor_head_elements_ =
        std::max<std::int64_t>(1, (activation_elements_ + s.tensor - 1) / s.tensor);
  if (work_.reduce_per_microbatch) {
    std::int64_t n = s.data;
    layer_shard_elements_ = (elements(work_.layer_shard_bytes, bpe) + n - 1) / n * n;
  }
}

// The stage that takes `op`'s output on `stage` (-1: none, or the stage itself: DualPipeV's turn
// from the last stage's first chunk to its second needs no transfer).
int ModelParallelTraining::destination(int stage, const PipeOp& op) const {
  StageChunk to;
  if (!state_.split().route().output_to(op.kind, stage, op.chunk, to) || to.stage == stage)
    return -1;
  return to.stage;
}

// The rank on `stage` with `me`'s other coordinates: its peer there.
int ModelParallelTraining::rank_on_stage(const RankCoords& me, int stage) const {
  RankCoords peer = me;
  peer.stage = stage;
  return state_.rank_of(peer);
}

namespace {

// The op on the receiving stage that `op`, run on `stage`, feeds.
PipeOp fed_op(const PipeOp& op, int stage, const PipeRoute& route) {
  PipeOp in{op.kind, op.microbatch, op.chunk};
  StageChunk to;
  if (route.output_to(op.kind, stage, op.chunk, to)) in.chunk = to.chunk;
  return in;
}

// The op on the sending stage whose output feeds `op` (fed_op's inverse).
PipeOp op_sent_for(const PipeOp& op, int stage, const PipeRoute& route) {
  PipeOp out{op.kind, op.microbatch, op.chunk};
  StageChunk from;
  if (route.input_from(op.kind, stage, op.chunk, from)) out.chunk = from.chunk;
  return out;
}

}  // namespace

std::int64_t ModelParallelTraining::buffer_elements() const {
  return gradient_elements_ + activation_elements_ +
         2LL * static_cast<std::int64_t>(ops_per_stage_) * transfer_elements_ + token_elements() +
         expert_gradient_elements_ + 2LL * work_.context * context_block_elements_ +
         layer_shard_elements_;
}

Span ModelParallelTraining::shard_span() const {
  return {buffer_elements() - layer_shard_elements_, layer_shard_elements_};
}

// The regions: the gradient shard, the tensor all-reduces' activations, then a slot per op of the
// iteration for what it sends and one for what it receives.
Span ModelParallelTraining::send_slot(std::size_t op_index) const {
  return {gradient_elements_ + activation_elements_ +
              static_cast<std::int64_t>(op_index) * transfer_elements_,
          transfer_elements_};
}

Span ModelParallelTraining::receive_slot(std::size_t op_index) const {
  return send_slot(op_index + ops_per_stage_);
}

namespace {

// A token exchange's label: sent by group member `from` for member `to` in `pass` (an overlapped
// pair's forward 0 or backward 1), apart from the stage transfers' tags, which stay far below 2^40.
std::uint64_t token_tag(int from, int to, int members, int pass) {
  return (std::uint64_t{1} << 40) + (static_cast<std::uint64_t>(pass) * members + from) * members +
         to;
}

}  // namespace

// Each MoE layer of the chunk dispatches the rank's tokens to their experts and combines the
// experts' outputs back, forward and backward: pairs of all-to-alls over the expert-parallel group.
void ModelParallelTraining::exchange_tokens(const Rank& rank, const PipeOp& op,
                                            ModelParallelStepTimes& times) const {
  int moe = chunk_moe_layers(state_.split(), rank.at.stage, op.chunk);
  if (rank.experts.size() < 2 || moe == 0) return;
  bool forward = op.kind == PipeOp::Kind::kForward;
  int count = moe * (forward ? work_.alltoalls_forward : work_.alltoalls_backward);
  double start = rank.fabric.now();
  for (int i = 0; i < count; ++i) times.wrong += token_alltoall(rank, 0, i);
  times.expert_s += rank.fabric.now() - start;
  rank.observer.phase(rank.fabric.rank(), "all-to-all", "comm", start, rank.fabric.now());
}

// Checked: every segment arrives at its member from the right sender, each way. The tokens go
// from `tokens` into `results` at their precision and come back the other way at 16 bits.
long ModelParallelTraining::token_alltoall(const Rank& rank, int pass, int i) const {
  int n = rank.experts.size(), me = rank.experts.rank();
  bool to_experts = i % 2 == 0;
  std::int64_t count = to_experts ? dispatch_elements_ : combine_elements_;
  std::int64_t room = token_room(), segment = count / n;
  std::int64_t base = send_slot(2 * ops_per_stage_).begin + pass * token_pass_elements();
  Span tokens{base, count}, results{base + room, count}, relay{base + 2 * room, count};
  Span send = to_experts ? tokens : results, receive = to_experts ? results : tokens;
  int way = 2 * pass + (to_experts ? 0 : 1);
  auto part = [segment](Span of, int member) { return Span{of.begin + member * segment, segment}; };
  for (int j = 0; rank.checks && j < n; ++j)
    if (j != me) rank.checks->label(part(send, j), token_tag(me, j, n, way));
  if (rank.checks) rank.checks->fill(receive, -1);  // nothing left from an earlier exchange
  std::int64_t across = all_to_all(rank, send, receive, relay);
  long wrong = 0;
  int per_node = rank.experts_per_node;
  for (int j = 0; rank.checks && j < n; ++j) {
    if (j == me) continue;
    Span arrived = part(receive, j);
    if (per_node > 0 && j / per_node != me / per_node)  // what crossed of j's node's block
      arrived.count = std::clamp<std::int64_t>(across - j % per_node * segment, 0, segment);
    wrong += rank.checks->mislabelled(arrived, token_tag(j, me, n, way));
  }
  return wrong;
}

std::int64_t ModelParallelTraining::all_to_all(const Rank& rank, Span send, Span receive,
                                               Span relay) const {
  int per_node = rank.experts_per_node;
  if (per_node == 0) {
    pairwise_all_to_all(rank.experts, send, receive);
    return 0;
  }
  std::int64_t block = send.count / rank.experts.size() * per_node;
  auto across = static_cast<std::int64_t>(std::ceil(rank.node_share * static_cast<double>(block)));
  hierarchical_all_to_all(rank.experts, per_node, send, receive, relay, across);
  return across;
}

int ModelParallelTraining::experts_per_node(const std::vector<int>& members) const {
  if (plan_.parallelism->expert_alltoall == ExpertAllToAll::kPairwise) return 0;
  std::vector<int> nodes;
  for (int r : members) nodes.push_back(rank_node_[r]);
  int per_node = members_per_node(nodes);
  if (per_node == 0)
    throw std::invalid_argument(
        "parallelism.expert_alltoall: the two-level exchange needs each expert group's ranks to "
        "sit in runs of equal length on distinct nodes; the group of rank " +
        std::to_string(members.front()) + " does not (its ranks are placed otherwise)");
  return per_node;
}

double ModelParallelTraining::node_share(int per_node, int members) const {
  if (per_node == 0 || plan_.parallelism->expert_alltoall != ExpertAllToAll::kDeduplicated)
    return 1;
  return node_distinct_share(*plan_.workload.transformer->moe, members / per_node);
}

std::int64_t ModelParallelTraining::token_room() const {
  return std::max(dispatch_elements_, combine_elements_);
}

std::int64_t ModelParallelTraining::token_pass_elements() const {
  bool relayed = plan_.parallelism->expert_alltoall != ExpertAllToAll::kPairwise;
  return (relayed ? 3 : 2) * token_room();
}

std::int64_t ModelParallelTraining::token_elements() const {
  return (is_dualpipe(plan_.parallelism->schedule) ? 2 : 1) * token_pass_elements();
}

// Tells apart every transfer of an iteration: its kind, micro-batch, chunk and sending stage.
std::uint64_t ModelParallelTraining::tag(const PipeOp& op, int sender_stage) const {
  std::uint64_t kind = op.kind == Kind::kForward ? 0 : 1;
  return ((static_cast<std::uint64_t>(sender_stage) * 2 + kind) * chunks_ + op.chunk) *
             microbatches_ +
         op.microbatch + 1;
}

std::vector<PipeOp> ModelParallelTraining::schedule_of(int stage, int /*rank*/) const {
  return stage_schedule(plan_.parallelism->schedule, stage, stages_, microbatches_, chunks_);
}

void ModelParallelTraining::run_op(const Rank& rank, const PipeOp& op, std::size_t index,
                                   BucketQueue* queue, ModelParallelStepTimes& times) const {
  if (op.kind == Kind::kWeight) return run_weight_op(rank, op, times);
  if (work_.reduce_per_microbatch) return run_sharded_op(rank, op, index, times);
  if (work_.tp_comm_overlap || work_.context > 1 || (queue && queue->walks(op)))
    return run_walking_op(rank, op, index, queue, times);
  bool forward = op.kind == Kind::kForward;
  bool output_layer = state_.split().route().holds_output_layer(rank.at.stage, op.chunk);
  int layers = chunk_layers(state_.split(), rank.at.stage, op.chunk);
  double backward = work_.layer_backward_flops - (op.weight_apart ? work_.layer_weight_flops : 0);
  double flops = layers * (forward ? work_.layer_forward_flops : backward);
  if (output_layer) flops += (forward ? 1 : 2) * work_.logit_forward_flops;
  double t0 = rank.fabric.now();
  rank.fabric.device().compute(flops * compute_scale_);
  times.compute_s += rank.fabric.now() - t0;
  run_tensor_allreduces(
      rank, layers * (forward ? work_.tensor_allreduces_forward : work_.tensor_allreduces_backward),
      times);
  exchange_tokens(rank, op, times);
}

// The zero-bubble schedule's weight pass: the gradients of the stage's layers' weights, no
// communication (the output layer's stay with its backward).
void ModelParallelTraining::run_weight_op(const Rank& rank, const PipeOp& op,
                                          ModelParallelStepTimes& times) const {
  double t0 = rank.fabric.now();
  rank.fabric.device().compute(chunk_layers(state_.split(), rank.at.stage, op.chunk) *
                               work_.layer_weight_flops * compute_scale_);
  times.compute_s += rank.fabric.now() - t0;
}

std::optional<BucketQueue> ModelParallelTraining::bucket_queue(int stage) const {
  if (!work_.overlap_grad_reduce) return std::nullopt;
  return BucketQueue(work_, state_.split(), stage);
}

ModelParallelTraining::LayerWalk ModelParallelTraining::layer_walk(const Rank& rank,
                                                                   const PipeOp& op) const {
  LayerWalk w;
  w.forward = op.kind == Kind::kForward;
  w.output_layer = state_.split().route().holds_output_layer(rank.at.stage, op.chunk);
  w.layers = chunk_layers(state_.split(), rank.at.stage, op.chunk);
  w.layer_flops =
      (w.forward ? work_.layer_forward_flops : work_.layer_backward_flops) * compute_scale_;
  w.allreduces = w.forward ? work_.tensor_allreduces_forward : work_.tensor_allreduces_backward;
  if (work_.context > 1) {
    w.attention_flops =
        (w.forward ? work_.layer_attention_forward_flops
                   : work_.layer_attention_backward_flops +
                         (work_.context_recomputed ? work_.layer_attention_forward_flops : 0)) *
        compute_scale_;
    w.layer_flops -= w.attention_flops;
  }
  return w;
}

// `allreduces` all-reduces in a row over the tensor group; checked where the sums stay exact.
void ModelParallelTraining::run_tensor_allreduces(const Rank& rank, int allreduces,
                                                  ModelParallelStepTimes& times) const {
  double t1 = rank.fabric.now();
  times.wrong +=
      run_tensor_allreduces(rank, allreduces, {gradient_elements_, activation_elements_});
  times.tensor_s += rank.fabric.now() - t1;
}

long ModelParallelTraining::run_tensor_allreduces(const Rank& rank, int allreduces,
                                                  Span part) const {
  // Ones from every rank: after k all-reduces in a row each element holds t^k.
  double expected = std::pow(rank.tensor.size(), allreduces);
  bool check = rank.checks && rank.tensor.size() > 1 && expected <= rank.checks->exact_limit();
  if (check) rank.checks->fill(part, 1.0f);
  ring_allreduces(rank.tensor, strided_ring(0, 1, rank.tensor.size(), rank.tensor.rank()), part,
                  allreduces);
  return check ? rank.checks->differs(part, static_cast<float>(expected)) : 0;
}

namespace {

// The stages next to `stage` (one, or none, where the pipeline is short).
std::vector<int> neighbour_stages(int stage, int stages) {
  std::vector<int> out;
  for (int from : {(stage + stages - 1) % stages, (stage + 1) % stages})
    if (from != stage && (out.empty() || out[0] != from)) out.push_back(from);
  return out;
}

}  // namespace

std::size_t ModelParallelTraining::receive_window() const {
  if (!receive_ahead_) return 0;
  // A stage runs at most p x v ops ahead of its neighbour in 1F1B; GPipe's forwards all at once.
  if (plan_.parallelism->schedule == PipelineScheduleKind::kGpipe)
    return static_cast<std::size_t>(2 * microbatches_ * chunks_);
  return static_cast<std::size_t>(2 * stages_ * chunks_ + 4);
}

ModelParallelStepTimes ModelParallelTraining::iteration(const Rank& rank, int step) const {
  Fabric& fabric = rank.fabric;
  const RankCoords& me = rank.at;
  ModelParallelStepTimes times;
  times.step = step;
  times.start = fabric.now();
  std::vector<PipeOp> mine = schedule_of(me.stage, fabric.rank());
  std::map<OpKey, std::size_t> index;  // each of this stage's ops by its place in the schedule
  for (std::size_t i = 0; i < mine.size(); ++i) index[key(mine[i])] = i;
  std::vector<int> senders = neighbour_stages(me.stage, stages_);
  // SimGrid's hints, where the fabric offers them; else receives posted ahead, sends waited for
  // at the end.
  auto* ahead = dynamic_cast<ReceiveAhead*>(&fabric);
  Inbox inbox(
      fabric, ahead, [&](const OpKey& k) { return receive_slot(index.at(k)); }, receive_window());
  for (int from : senders) {
    std::vector<OpKey> order;  // what `from` sends this stage, in the order it sends it
    for (const PipeOp& op : schedule_of(from, -1))
      if (destination(from, op) == me.stage)
        order.push_back(key(fed_op(op, from, state_.split().route())));
    inbox.add_sender(rank_on_stage(me, from), std::move(order));
  }
  // A transfer's label also names the step: a receive that never landed leaves last step's data.
  auto label = [step](std::uint64_t transfer) {
    return transfer * 1000003 + static_cast<std::uint64_t>(step);
  };
  std::optional<BucketQueue> queue = bucket_queue(me.stage);
  BucketQueue* buckets = queue ? &*queue : nullptr;
  std::vector<Fabric::Handle> outgoing;
  std::size_t pending_from = 0;  // outgoing[pending_from..] may still be in flight
  auto take_input = [&](std::size_t i) {
    int sender = inbox.take(mine[i]);
    if (sender >= 0 && rank.checks)  // the micro-batch and chunk this op expects, from its sender
      times.wrong += rank.checks->mislabelled(
          receive_slot(i),
          label(tag(op_sent_for(mine[i], me.stage, state_.split().route()), senders[sender])));
  };
  auto send_output = [&](std::size_t i) {
    int to = destination(me.stage, mine[i]);
    if (to < 0) return;
    if (rank.checks) rank.checks->label(send_slot(i), label(tag(mine[i], me.stage)));
    Fabric::Handle sent = fabric.post_send(rank_on_stage(me, to), send_slot(i));
    // DeepSpeed's pipeline engine waits for each send. Only where receives are posted ahead
    // (SimGrid, Gloo): against NCCL's just-in-time receives two neighbours' waiting sends could
    // hold each other up, so there the sends fly as Megatron-LM's do.
    if (blocking_stage_transfers(plan_) && receive_ahead_) {
      fabric.wait_all({sent});
      return;
    }
    outgoing.push_back(sent);
    if (ahead) pending_from = ahead->release_done(outgoing, pending_from);
  };
  // Each op, or each pair (DualPipe's F&B: both outputs sent after, both inputs taken first unless
  // the pair is the last stage's first; overlapped where their MoE layers exchange tokens).
  for (std::size_t i = 0; i < mine.size();) {
    std::size_t end = i + (mine[i].sends_with_next && i + 1 < mine.size() ? 2 : 1);
    bool together = mine[i].takes_with_next;  // both receives in one group, both waited for
    if (together) {
      for (std::size_t k = i; k < end; ++k) inbox.post(mine[k]);
      for (std::size_t k = i; k < end; ++k) take_input(k);
    }
    bool overlapped = end == i + 2 && overlaps_pair(work_, mine[i]);
    if (overlapped) run_overlapped_pair(rank, mine[i], mine[i + 1], times);
    for (std::size_t k = i; k < end && !overlapped; ++k) {
      if (!together) take_input(k);
      double start = fabric.now();
      run_op(rank, mine[k], k, buckets, times);
      rank.observer.phase(fabric.rank(), op_name(mine[k], chunks_), pass_name(mine[k].kind), start,
                          fabric.now());
    }
    for (std::size_t k = i; k < end; ++k) send_output(k);
    i = end;
  }
  exchange_gradient(rank, buckets, times);
  run_optimizer(rank, times);
  fabric.wait_all(outgoing);
  fabric.end_bucket();
  times.end = fabric.now();
  return times;
}

// The optimizer's update of the rank's shard, once the gradient is summed.
void ModelParallelTraining::run_optimizer(const Rank& rank, ModelParallelStepTimes& times) const {
  if (work_.optimizer_flops <= 0) return;
  Fabric& fabric = rank.fabric;
  double start = fabric.now();
  fabric.device().compute(work_.optimizer_flops * compute_scale_);
  times.compute_s += fabric.now() - start;
  rank.observer.phase(fabric.rank(), "optimizer step", "compute", start, fabric.now());
}

void ModelParallelTraining::exchange_gradient(const Rank& rank, BucketQueue* queue,
                                              ModelParallelStepTimes& times) const {
  Fabric& fabric = rank.fabric;
  Span gradient{0, gradient_elements_};
  if (queue) {  // overlap_grad_reduce: the buckets still waiting, then ZeRO-1's gather
    double start = fabric.now();
    for (const GradientBucket& bucket : queue->rest()) exchange_bucket(rank, bucket, times);
    if (plan_.parallelism->zero == 1 && !work_.overlap_param_gather)
      gather_shards(rank.data, rank, gradient, ~std::uint64_t{0} - times.step, times);
    exchange_expert_gradient(rank, times);
    times.data_s += fabric.now() - start;
    rank.observer.phase(fabric.rank(), "parameter gather", "comm", start, fabric.now());
    return;
  }
  double start = fabric.now();
  if (work_.reduce_per_microbatch) {  // ZeRO-2 gathers the updated parameters; ZeRO-3 none
    if (work_.data_volume > 0)
      gather_shards(rank.data, rank, gradient, ~std::uint64_t{0} - times.step, times);
    times.data_s += fabric.now() - start;
    rank.observer.phase(fabric.rank(), "parameter gather", "comm", start, fabric.now());
    return;
  }
  if (rank.data_program) {
    if (rank.checks) fabric.device().produce_gradient(gradient);
    rank.data_program->run(rank.data, gradient);
    if (rank.checks) times.wrong += rank.checks->differs_from_sum(gradient, rank.data_members);
  }
  exchange_expert_gradient(rank, times);
  times.data_s += fabric.now() - start;
  rank.observer.phase(fabric.rank(), "data-parallel exchange", "comm", start, fabric.now());
}

// The experts' gradients, over the ranks holding the same experts.
void ModelParallelTraining::exchange_expert_gradient(const Rank& rank,
                                                     ModelParallelStepTimes& times) const {
  if (!rank.expert_data_program) return;
  std::int64_t base = send_slot(2 * ops_per_stage_).begin;
  Span experts{base + token_elements(), expert_gradient_elements_};
  if (rank.checks) rank.fabric.device().produce_gradient(experts);
  rank.expert_data_program->run(rank.expert_data, experts);
  if (rank.checks) times.wrong += rank.checks->differs_from_sum(experts, rank.expert_data_members);
}

// A data group's exchange: the plan's strategy over the group's ranks, placed by node (none for a
// group of one).
std::unique_ptr<StrategyProgram> ModelParallelTraining::group_exchange(
    const std::vector<int>& members) const {
  if (members.size() < 2) return nullptr;
  RankLayout layout;
  layout.workers = static_cast<int>(members.size());
  for (int r : members) layout.worker_node.push_back(rank_node_[r]);
  return make_strategy(group_plan(plan_, layout.workers, plan_.strategy.kind), layout);
}

std::vector<int> ModelParallelTraining::gradient_group(int rank,
                                                       const std::vector<ParallelDim>& dims) const {
  std::vector<int> members = state_.group(rank, dims);
  if (plan_.parallelism->schedule != PipelineScheduleKind::kDualPipe) return members;
  RankCoords mirror = state_.coordinates(rank);
  mirror.stage = stages_ - 1 - mirror.stage;
  for (int r : state_.group(state_.rank_of(mirror), dims)) members.push_back(r);
  std::sort(members.begin(), members.end());
  return members;
}

void ModelParallelTraining::run(Fabric& fabric, ModelParallelObserver& observer,
                                ModelParallelChecks* checks) const {
  int me = fabric.rank();
  GroupFabric tensor(fabric, state_.group(me, {ParallelDim::kTensor}));
  // The dense layers' data group spans the context- and expert-parallel ranks too (Megatron-Core's
  // "cp-ep-dp": a context group's members hold the same weights).
  std::vector<int> members =
      gradient_group(me, {ParallelDim::kContext, ParallelDim::kExpert, ParallelDim::kData});
  GroupFabric data(fabric, members);
  std::unique_ptr<StrategyProgram> data_program = group_exchange(members);
  std::vector<int> expert_group = state_.group(me, {ParallelDim::kExpert});
  GroupFabric experts(fabric, expert_group);
  std::vector<int> expert_members = gradient_group(me, {ParallelDim::kData});
  GroupFabric expert_data(fabric, expert_members);
  std::unique_ptr<StrategyProgram> expert_program;
  if (state_.degree(ParallelDim::kExpert) > 1) expert_program = group_exchange(expert_members);
  std::vector<int> context_members = state_.group(me, {ParallelDim::kContext});
  GroupFabric context(fabric, context_members);
  int per_node = expert_group.size() > 1 ? experts_per_node(expert_group) : 0;
  Rank rank{fabric,
            tensor,
            data,
            data_program.get(),
            observer,
            checks,
            state_.coordinates(me),
            members,
            experts,
            per_node,
            node_share(per_node, static_cast<int>(expert_group.size())),
            expert_data,
            expert_program.get(),
            expert_members,
            context,
            context_members.front()};
  for (int step = 0; step < plan_.training.steps; ++step) {
    fabric.mark_step(step);
    observer.step_done(fabric.rank(), iteration(rank, step));
  }
}

}  // namespace scaleout::core
