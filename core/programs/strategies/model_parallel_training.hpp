// Model-parallel training as a program, written once for every engine: each rank walks its
// pipeline stage's schedule (core/parallel/pipeline_schedule.hpp); a forward or backward of a chunk
// computes the chunk's layers and runs its tensor group's all-reduces (a ring on a group view of
// the fabric) and, with expert parallelism, its MoE layers' token dispatch and combine
// (all-to-all over the expert-parallel group), receives its input from the neighbouring stage and
// sends its output on without waiting; once the schedule is through, the rank's data group
// exchanges the gradient with the plan's strategy (on another group view). Receives from each
// neighbour are posted in the order that neighbour sends, a window ahead, so transfers flow while
// the stage computes (or just in time, as NCCL's grouped calls need).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model_parallel_work.hpp"
#include "core/parallel/parallel_state.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/plan.hpp"
#include "core/programs/fabric.hpp"
#include "core/programs/gradient_buckets.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

// One rank's times of one iteration (fabric.now()).
struct ModelParallelStepTimes {
  int step = 0;
  double start = 0;
  double end = 0;
  double compute_s = 0;  // its layers' compute
  double tensor_s = 0;   // its tensor group's all-reduces
  double expert_s = 0;   // its expert-parallel group's all-to-alls (dispatch and combine)
  double context_s = 0;  // its context group's key-value exchanges, where compute did not hide them
  double data_s = 0;     // its data group's gradient exchange
  long wrong = 0;        // executed: elements that differed from what was sent or summed
};

// What an executed engine checks while the program runs, on the rank's buffer (a simulation holds
// no data and passes none). Ranges are in the program's buffer (buffer_elements()).
class ModelParallelChecks {
 public:
  virtual ~ModelParallelChecks() = default;
  // Writes a pattern that `tag` determines; mislabelled() counts the elements that differ from it.
  virtual void label(Span span, std::uint64_t tag) = 0;
  virtual long mislabelled(Span span, std::uint64_t tag) const = 0;
  virtual void fill(Span span, float value) = 0;
  virtual long differs(Span span, float value) const = 0;
  // Elements that differ from the sum over `ranks` of the values their produce_gradient wrote.
  virtual long differs_from_sum(Span span, const std::vector<int>& ranks) const = 0;
  // The largest integer every element holds exactly (the precision's).
  virtual double exact_limit() const = 0;
};

class ModelParallelObserver {
 public:
  virtual ~ModelParallelObserver() = default;
  virtual void step_done(int rank, const ModelParallelStepTimes& times) = 0;
  // A forward, backward or weight pass of a micro-batch through a chunk (category "forward",
  // "backward", "weight"), or the data group's exchange.
  virtual void phase(int /*rank*/, const std::string& /*name*/, const char* /*category*/,
                     double /*start*/, double /*end*/) {}
};

class ModelParallelTraining {
 public:
  // `rank_node`: the node of every rank (the data group's strategy places its ranks by node).
  // `receive_ahead`: post receives a window ahead of the schedule (a simulator's transfers then
  // flow while the stage computes); false posts each just before it is needed, as NCCL's grouped
  // calls need (a group waits for every receive in it).
  // REQUIRES: a validated plan with `parallelism:` and a collective strategy.
  ModelParallelTraining(const Plan& plan, std::vector<int> rank_node, bool receive_ahead = true);
  virtual ~ModelParallelTraining() = default;

  // Runs every iteration on the fabric's rank; `checks` (executed engines) verifies every stage
  // transfer's micro-batch, every tensor all-reduce's and the data group's sums.
  void run(Fabric& fabric, ModelParallelObserver& observer,
           ModelParallelChecks* checks = nullptr) const;

  // Elements of the buffer the program's ranges cover: the gradient shard, the tensor
  // all-reduces' activations, a slot for each stage transfer of an iteration, then the
  // all-to-alls' tokens sent and received, the experts' gradient shard, the context group's
  // key-value blocks (two slots a member) and ZeRO-2/3's layer.
  std::int64_t buffer_elements() const;
  // Executed engines run this share of the FLOPs the plan charges (a CPU's kernel); default 1.
  void set_compute_scale(double scale) { compute_scale_ = scale; }

  // Elements (of the fabric's element size) of one activation transfer and of the gradient shard.
  std::int64_t activation_elements() const { return activation_elements_; }
  std::int64_t gradient_elements() const { return gradient_elements_; }

 protected:
  // The ops `stage` runs, in order (`rank`: the rank that runs them, -1 for a neighbour's order
  // seen from another rank). Virtual for one test fault only: a rank running a broken order
  // (exec/broken_schedule.hpp), which its neighbours' checks must catch.
  virtual std::vector<PipeOp> schedule_of(int stage, int rank) const;

 private:
  struct Rank;  // one rank's views and programs for a run
  ModelParallelStepTimes iteration(const Rank& rank, int step) const;
  // Receives posted ahead of the schedule from each neighbour (0: each when needed).
  std::size_t receive_window() const;
  // What an op that walks its layers one at a time runs on `rank`'s stage.
  struct LayerWalk {
    bool forward = true;
    bool output_layer = false;  // the last stage's last chunk: the output layer's compute too
    int layers = 0;
    double layer_flops = 0;  // one layer's, at the compute scale (less attention_flops)
    int allreduces = 0;      // one layer's tensor all-reduces
    // Context parallelism: the attention's compute, run beside the context group's exchanges.
    double attention_flops = 0;
  };
  LayerWalk layer_walk(const Rank& rank, const PipeOp& op) const;
  // The first of `layers` + 1 labels unique to step `step`'s op `index` and its layers (the
  // checks' labels of what the layers exchange: base + layer).
  std::uint64_t layer_labels(int step, std::size_t index, int layers) const {
    return (static_cast<std::uint64_t>(step) * 4 * microbatches_ * chunks_ + index) *
           static_cast<std::uint64_t>(layers + 1);
  }
  // A stage's gradient buckets for one iteration (none without overlap_grad_reduce).
  std::optional<BucketQueue> bucket_queue(int stage) const;
  // `queue`: the stage's waiting gradient buckets (null without overlap_grad_reduce).
  void run_op(const Rank& rank, const PipeOp& op, std::size_t index, BucketQueue* queue,
              ModelParallelStepTimes& times) const;
  void run_weight_op(const Rank& rank, const PipeOp& op, ModelParallelStepTimes& times) const;
  // overlap_grad_reduce (core/programs/strategies/model_parallel_overlap.cpp): an op's layers one
  // at a time, each beside the oldest waiting bucket's exchange; and one bucket's exchange. With
  // tp_comm_overlap every op walks: a layer's first chunk of tensor collectives, then its compute
  // beside the other chunks' (`queue`: may be null). With context parallelism every op walks, each
  // layer's attention with its exchanges first.
  void run_walking_op(const Rank& rank, const PipeOp& op, std::size_t index, BucketQueue* queue,
                      ModelParallelStepTimes& times) const;
  // Context parallelism (core/programs/strategies/model_parallel_context.cpp): one layer's
  // attention, forward or backward, with its key-value exchanges over the context group. `layer` is
  // unique to the step, op and layer.
  void run_context_attention(const Rank& rank, const LayerWalk& walk, std::uint64_t layer,
                             ModelParallelStepTimes& times) const;
  // The ring: each block passed on to the next member beside the compute of the block held, in
  // `parts` blocks a message (2: the keys and values with their gradient).
  void pass_context_blocks(const Rank& rank, int parts, double flops, std::uint64_t label,
                           ModelParallelStepTimes& times) const;
  Span context_slot(int owner, int parts) const;
  void exchange_bucket(const Rank& rank, const GradientBucket& bucket,
                       ModelParallelStepTimes& times) const;
  // `count` all-reduces in a row over the tensor group of the activations, or of `part` of them
  // (tp_comm_overlap: a chunk's).
  void run_tensor_allreduces(const Rank& rank, int count, ModelParallelStepTimes& times) const;
  long run_tensor_allreduces(const Rank& rank, int count, Span part) const;  // elements wrong
  // ZeRO-2 and ZeRO-3 (core/programs/strategies/model_parallel_sharding.cpp): an op's layers one at
  // a time with their gathers and reduce-scatters beside the compute, and the step-end gather.
  void run_sharded_op(const Rank& rank, const PipeOp& op, std::size_t index,
                      ModelParallelStepTimes& times) const;
  void gather_shards(Fabric& group, const Rank& rank, Span span, std::uint64_t label,
                     ModelParallelStepTimes& times) const;
  void reduce_shards(Fabric& group, const Rank& rank, Span span,
                     ModelParallelStepTimes& times) const;
  Span shard_span() const;
  void exchange_gradient(const Rank& rank, BucketQueue* queue, ModelParallelStepTimes& times) const;
  void run_optimizer(const Rank& rank, ModelParallelStepTimes& times) const;
  void exchange_expert_gradient(const Rank& rank, ModelParallelStepTimes& times) const;
  void exchange_tokens(const Rank& rank, const PipeOp& op, ModelParallelStepTimes& times) const;
  // The `i`-th all-to-all of a pass through its chunk's MoE layers, on the token buffers of `pass`
  // (an overlapped pair's forward 0 and backward 1; else 0): even ones send the rank's tokens to
  // the experts, odd ones bring them back; each labelled before and checked after. Returns the
  // elements that arrived wrong.
  long token_alltoall(const Rank& rank, int pass, int i) const;
  // DualPipe's F&B pair as one (core/model/pair_overlap.hpp): each pass's compute beside the
  // other's all-to-alls, then both passes' tensor all-reduces.
  void run_overlapped_pair(const Rank& rank, const PipeOp& forward, const PipeOp& backward,
                           ModelParallelStepTimes& times) const;
  // One all-to-all of the expert group, as the plan runs it (`relay`: the two-level ones'). Returns
  // the elements of each node's block that crossed (0 when pairwise).
  std::int64_t all_to_all(const Rank& rank, Span send, Span receive, Span relay) const;
  // The two-level all-to-all's members a node in `members`' group (0: pairwise). Throws
  // std::invalid_argument when the group's nodes do not hold equal runs of it.
  int experts_per_node(const std::vector<int>& members) const;
  // Of each node's block, the share that crosses: the deduplicated exchange's distinct tokens
  // (core/model/token_exchange.hpp) for a group of `members` with `per_node` a node, else 1.
  double node_share(int per_node, int members) const;
  // The all-to-alls' tokens sent and received, and the two-level exchange's relay: of one pass
  // (token_pass_elements, three rooms of token_room), twice where DualPipe's pairs overlap two
  // passes' exchanges.
  std::int64_t token_elements() const;
  std::int64_t token_pass_elements() const;
  std::int64_t token_room() const;
  std::unique_ptr<StrategyProgram> group_exchange(const std::vector<int>& members) const;
  // The ranks that sum `rank`'s gradient over `dims` (state_.group), and under DualPipe those of
  // its mirror stage (stages - 1 - stage), which holds the same parameters.
  std::vector<int> gradient_group(int rank, const std::vector<ParallelDim>& dims) const;
  std::uint64_t tag(const PipeOp& op, int sender_stage) const;
  Span send_slot(std::size_t op_index) const;
  Span receive_slot(std::size_t op_index) const;
  int destination(int stage, const PipeOp& op) const;
  int rank_on_stage(const RankCoords& me, int stage) const;

  Plan plan_;
  std::vector<int> rank_node_;
  bool receive_ahead_ = true;
  ParallelState state_;  // the plan's split and its ranks' groups
  ModelParallelWork work_;
  int stages_ = 1, microbatches_ = 1, chunks_ = 1;
  std::size_t ops_per_stage_ = 2;  // the ops of one stage's iteration
  std::int64_t activation_elements_ = 1, gradient_elements_ = 1;
  std::int64_t transfer_elements_ = 1;  // one rank's share of a stage transfer
  // One all-to-all's, to the experts and back (multiples of the expert degree).
  std::int64_t dispatch_elements_ = 0;
  std::int64_t combine_elements_ = 0;
  std::int64_t expert_gradient_elements_ = 0;
  std::int64_t layer_shard_elements_ = 0;    // ZeRO-2/3: one layer's (a multiple of the data group)
  std::int64_t tensor_head_elements_ = 0;    // tp_comm_overlap: the first chunk, not hidden
  std::int64_t context_block_elements_ = 0;  // one member's keys and values of a layer
  double compute_scale_ = 1;
};

}  // namespace scaleout::core
