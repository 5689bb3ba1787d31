#include "core/strategies/model_parallel_training.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <tuple>

#include "core/group_fabric.hpp"
#include "core/model_split.hpp"
#include "core/strategies/ring_phases.hpp"
#include "core/strategy.hpp"

namespace scaleout::core {

namespace {

using Kind = PipeOp::Kind;
using OpKey = std::tuple<int, int, int>;  // kind, micro-batch, chunk

OpKey key(const PipeOp& op) { return {static_cast<int>(op.kind), op.microbatch, op.chunk}; }

std::int64_t elements(double bytes, int bytes_per_element) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(bytes / bytes_per_element)));
}

std::string op_name(const PipeOp& op, int chunks) {
  std::string name =
      (op.kind == Kind::kForward ? "forward " : "backward ") + std::to_string(op.microbatch);
  return chunks > 1 ? name + " (chunk " + std::to_string(op.chunk) + ")" : name;
}

// The receives of an iteration from the neighbouring stages, posted in the order each neighbour
// sends and at most `window` ahead of what the stage has taken: transfers flow while the stage
// computes, and a simulator does not hold a pending receive for every micro-batch at once. With
// a window of 0 each is posted when the stage needs it (with those the neighbour sent before it).
class Inbox {
 public:
  Inbox(Fabric& fabric, Span span, std::size_t window)
      : fabric_(fabric), span_(span), window_(window) {}

  void add_sender(int peer, std::vector<OpKey> order) {
    for (const OpKey& k : order) sender_of_[k] = senders_.size();
    senders_.push_back({peer, std::move(order)});
    for (std::size_t i = 0; i < window_; ++i) post_next(senders_.size() - 1);
  }

  // Waits for `op`'s input, if a neighbour sends it one, and keeps that neighbour's window full.
  void take(const PipeOp& op) {
    auto from = sender_of_.find(key(op));
    if (from == sender_of_.end()) return;
    while (!posted_.count(key(op))) post_next(from->second);
    Fabric::Handle handle = posted_[key(op)];
    posted_.erase(key(op));
    fabric_.wait_all({handle});
    Sender& s = senders_[from->second];
    ++s.taken;
    while (s.next < s.order.size() && s.next < s.taken + window_) post_next(from->second);
  }

 private:
  struct Sender {
    int peer;
    std::vector<OpKey> order;
    std::size_t next = 0;   // receives posted
    std::size_t taken = 0;  // and waited for
  };
  void post_next(std::size_t s) {
    Sender& from = senders_[s];
    if (from.next == from.order.size()) return;
    posted_[from.order[from.next++]] = fabric_.post_recv(from.peer, span_, Combine::kReplace);
  }

  Fabric& fabric_;
  Span span_;
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
      work_(model_parallel_work(plan)) {
  ModelSplit s = model_split(plan);
  stages_ = s.pipeline;
  microbatches_ = s.microbatches;
  chunks_ = s.chunks;
  layers_per_chunk_ = s.layers_per_chunk;
  int bpe = plan.training.gradient_bytes_per_element;
  activation_elements_ = elements(work_.activation_bytes, bpe);
  gradient_elements_ = elements(work_.gradient_bytes * work_.data_volume, bpe);
}

// The stage that takes `op`'s output on `stage` (-1: none): forwards go down the stages and from
// the last stage round to the first for the next chunk; backwards go back up.
int ModelParallelTraining::destination(int stage, const PipeOp& op) const {
  if (stages_ < 2) return -1;
  if (op.kind == Kind::kForward) {
    if (stage < stages_ - 1) return stage + 1;
    return op.chunk < chunks_ - 1 ? 0 : -1;
  }
  if (stage > 0) return stage - 1;
  return op.chunk > 0 ? stages_ - 1 : -1;
}

namespace {

// The op on the receiving stage that `op`, run on `stage`, feeds.
PipeOp fed_op(const PipeOp& op, int stage, int stages) {
  PipeOp in = op;
  if (op.kind == Kind::kForward && stage == stages - 1) ++in.chunk;
  if (op.kind == Kind::kBackward && stage == 0) --in.chunk;
  return in;
}

}  // namespace

void ModelParallelTraining::run_op(Fabric& fabric, Fabric& tensor, const PipeOp& op, int stage,
                                   ModelParallelStepTimes& times) const {
  bool forward = op.kind == Kind::kForward;
  bool output_layer = stage == stages_ - 1 && op.chunk == chunks_ - 1;
  double flops =
      layers_per_chunk_ * (forward ? work_.layer_forward_flops : work_.layer_backward_flops);
  if (output_layer) flops += (forward ? 1 : 2) * work_.logit_forward_flops;
  double t0 = fabric.now();
  fabric.compute(flops);
  double t1 = fabric.now();
  int allreduces = layers_per_chunk_ *
                   (forward ? work_.tensor_allreduces_forward : work_.tensor_allreduces_backward);
  ring_allreduces(tensor, strided_ring(0, 1, tensor.size(), tensor.rank()),
                  Span{0, activation_elements_}, allreduces);
  times.compute_s += t1 - t0;
  times.tensor_s += fabric.now() - t1;
}

ModelParallelStepTimes ModelParallelTraining::iteration(Fabric& fabric, Fabric& tensor,
                                                        Fabric& data, StrategyProgram* data_program,
                                                        ModelParallelObserver& observer,
                                                        int step) const {
  ModelParallelRank me = model_parallel_rank(plan_, fabric.rank());
  PipelineScheduleKind kind = plan_.parallelism->schedule;
  ModelParallelStepTimes times;
  times.step = step;
  times.start = fabric.now();
  // Each rank of a tensor group sends its 1/t of the activations (Megatron's scatter-gather).
  Span activations{0, std::max<std::int64_t>(1, activation_elements_ / tensor.size())};
  // A stage runs at most p x v ops ahead of its neighbour in 1F1B; GPipe's forwards all at once.
  std::size_t window = !receive_ahead_ ? 0
                       : kind == PipelineScheduleKind::kGpipe
                           ? static_cast<std::size_t>(2 * microbatches_ * chunks_)
                           : static_cast<std::size_t>(2 * stages_ * chunks_ + 4);
  Inbox inbox(fabric, activations, window);
  std::vector<int> neighbours;
  for (int from : {(me.stage + stages_ - 1) % stages_, (me.stage + 1) % stages_})
    if (from != me.stage && (neighbours.empty() || neighbours[0] != from))
      neighbours.push_back(from);
  for (int from : neighbours) {
    std::vector<OpKey> order;  // what `from` sends this stage, in the order it sends it
    for (const PipeOp& op : stage_schedule(kind, from, stages_, microbatches_, chunks_))
      if (destination(from, op) == me.stage) order.push_back(key(fed_op(op, from, stages_)));
    inbox.add_sender(rank_of(plan_, {me.tensor_index, me.data_index, from}), std::move(order));
  }
  std::vector<Fabric::Handle> outgoing;
  for (const PipeOp& op : stage_schedule(kind, me.stage, stages_, microbatches_, chunks_)) {
    inbox.take(op);
    double start = fabric.now();
    run_op(fabric, tensor, op, me.stage, times);
    observer.phase(fabric.rank(), op_name(op, chunks_),
                   op.kind == Kind::kForward ? "forward" : "backward", start, fabric.now());
    int to = destination(me.stage, op);
    if (to >= 0)
      outgoing.push_back(
          fabric.post_send(rank_of(plan_, {me.tensor_index, me.data_index, to}), activations));
  }
  double exchange = fabric.now();
  if (data_program) data_program->run(data, Span{0, gradient_elements_});
  times.data_s = fabric.now() - exchange;
  observer.phase(fabric.rank(), "data-parallel exchange", "comm", exchange, fabric.now());
  fabric.wait_all(outgoing);
  fabric.end_bucket();
  times.end = fabric.now();
  return times;
}

void ModelParallelTraining::run(Fabric& fabric, ModelParallelObserver& observer) const {
  GroupFabric tensor(fabric, tensor_group(plan_, fabric.rank()));
  std::vector<int> members = data_group(plan_, fabric.rank());
  GroupFabric data(fabric, members);
  // The data group's exchange: the plan's strategy over the group's ranks, placed by node.
  std::unique_ptr<StrategyProgram> data_program;
  if (members.size() > 1) {
    RankLayout layout;
    layout.workers = static_cast<int>(members.size());
    for (int r : members) layout.worker_node.push_back(rank_node_[r]);
    data_program = make_strategy(group_plan(plan_, layout.workers, plan_.strategy.kind), layout);
  }
  for (int step = 0; step < plan_.training.steps; ++step) {
    fabric.mark_step(step);
    observer.step_done(fabric.rank(),
                       iteration(fabric, tensor, data, data_program.get(), observer, step));
  }
}

}  // namespace scaleout::core
