// A plan's training step as Chakra execution traces (analytic/chakra_trace.hpp).
#include "analytic/chakra_trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "analytic/analytic.hpp"
#include "analytic/analytic_model_parallel.hpp"
#include "core/files/atomic_file.hpp"
#include "core/model/model_memory.hpp"
#include "core/model/model_parallel_work.hpp"
#include "core/parallel/parallel_state.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/input_error.hpp"

namespace scaleout::sim {

namespace {

using core::ChakraAttribute;
using core::ChakraNode;

// The schema version Chakra's own converters write.
constexpr const char* kChakraSchema = "1.0.2-chakra.1.0.0";

std::uint64_t micros(double seconds) {
  return static_cast<std::uint64_t>(std::llround(std::max(0.0, seconds) * 1e6));
}

// Every node runs on the device (the feeder takes a node without the attribute for a CPU's).
ChakraNode device_node(std::string name, core::ChakraNodeType type) {
  ChakraNode n;
  n.name = std::move(name);
  n.type = type;
  n.attributes.push_back(ChakraAttribute::boolean("is_cpu_op", false));
  return n;
}

ChakraNode compute(std::string name, double seconds, double flops) {
  ChakraNode n = device_node(std::move(name), core::ChakraNodeType::kComputation);
  n.duration_micros = micros(seconds);
  if (flops > 0) n.attributes.push_back(ChakraAttribute::int64("num_ops", std::llround(flops)));
  return n;
}

ChakraNode collective(std::string name, core::ChakraCollective kind, double bytes, int group) {
  ChakraNode n = device_node(std::move(name), core::ChakraNodeType::kCollective);
  n.attributes.push_back(ChakraAttribute::int64("comm_type", static_cast<int>(kind)));
  n.attributes.push_back(ChakraAttribute::int64("comm_size", std::llround(bytes)));
  n.attributes.push_back(ChakraAttribute::string("pg_name", std::to_string(group)));
  return n;
}

ChakraNode transfer(bool send, std::string name, int src, int dst, int tag, double bytes) {
  ChakraNode n = device_node(std::move(name),
                             send ? core::ChakraNodeType::kSend : core::ChakraNodeType::kReceive);
  n.attributes.push_back(ChakraAttribute::int32("comm_src", src));
  n.attributes.push_back(ChakraAttribute::int32("comm_dst", dst));
  n.attributes.push_back(ChakraAttribute::int32("comm_tag", tag));
  n.attributes.push_back(ChakraAttribute::int64("comm_size", std::llround(bytes)));
  return n;
}

// One rank's nodes: a chain, each waiting for the one before, and sends running beside it.
class RankNodes {
 public:
  explicit RankNodes(std::vector<ChakraNode>& out) : out_(out) {}
  // After the chain's last node (and, with `join`, after everything left beside it; and after
  // `also`).
  void then(ChakraNode node, bool join = false, const std::vector<std::uint64_t>& also = {}) {
    if (last_) node.data_deps.push_back(*last_);
    node.data_deps.insert(node.data_deps.end(), also.begin(), also.end());
    if (join) node.data_deps.insert(node.data_deps.end(), beside_.begin(), beside_.end());
    if (join) beside_.clear();
    last_ = add(std::move(node));
  }
  // After the chain's last node (and after `also`), the chain going on without waiting for it;
  // its id.
  std::uint64_t beside(ChakraNode node, const std::vector<std::uint64_t>& also = {}) {
    if (last_) node.data_deps.push_back(*last_);
    node.data_deps.insert(node.data_deps.end(), also.begin(), also.end());
    beside_.push_back(add(std::move(node)));
    return beside_.back();
  }

 private:
  std::uint64_t add(ChakraNode node) {
    node.id = out_.size();
    out_.push_back(std::move(node));
    return out_.back().id;
  }
  std::vector<ChakraNode>& out_;
  std::optional<std::uint64_t> last_;
  std::vector<std::uint64_t> beside_;
};

// Communicator groups by their members, numbered from 1 as they are first used.
class GroupIds {
 public:
  explicit GroupIds(std::map<int, std::vector<int>>& out) : out_(out) {}
  int id_of(const std::vector<int>& members) {
    auto [it, fresh] = ids_.try_emplace(members, static_cast<int>(ids_.size()) + 1);
    if (fresh) out_[it->second] = members;
    return it->second;
  }

 private:
  std::map<std::vector<int>, int> ids_;
  std::map<int, std::vector<int>>& out_;
};

void refuse(const std::string& why) {
  throw core::InputError("", 0, "--chakra", why + ": Chakra traces hold a plan without it yet");
}

void check_supported(const core::Plan& plan) {
  if (plan.strategy.kind == core::StrategyKind::kPs)
    refuse("a parameter server's exchange is not a collective");
  if (plan.training.compression.kind != core::CompressionKind::kNone)
    refuse("gradient compression");
  if (!plan.parallelism) return;
  const core::Parallelism& p = *plan.parallelism;
  if (p.schedule == core::PipelineScheduleKind::kDualPipe)
    refuse("DualPipe's two copies of each stage (their mirrored gradient groups)");
  if (core::is_dualpipe(p.schedule) && p.expert > 1)
    refuse("DualPipeV's overlapped pairs (each pass's compute beside the other's all-to-alls)");
}

}  // namespace

namespace {

// The communicator groups a rank's collectives run over (0: a group of one, where none run).
struct RankGroups {
  int tensor = 0;
  int context = 0;                          // the context group's key-value exchanges
  int context_left = 0, context_right = 0;  // the rank's neighbours on the ring attention's ring
  int data = 0;         // the dense layers' gradient: context x expert x data ranks
  int experts = 0;      // the expert-parallel group's token all-to-alls
  int expert_data = 0;  // the experts' gradient: the data ranks that hold the same experts
};

// A model-parallel rank's step: its stage's schedule, then the data groups' exchanges.
struct StageProgram {
  const core::Plan& plan;
  const core::ParallelState& state;
  const ModelParallelCosts& costs;
  const core::ModelParallelWork& work;
  GroupIds& groups;

  int virtual_stages() const { return state.split().pipeline * state.split().chunks; }

  // The rank holding virtual stage `v` (its position in the model, core::PipeRoute) beside `rank`.
  int rank_at(int rank, int v) const {
    core::RankCoords at = state.coordinates(rank);
    at.stage = state.split().route().at(v).stage;
    return state.rank_of(at);
  }

  // A transfer's tag: the micro-batch, the boundary after virtual stage `boundary`, the direction.
  int tag(int microbatch, int boundary, bool forward) const {
    return (microbatch * virtual_stages() + boundary) * 2 + (forward ? 0 : 1);
  }

  // ZeRO-3's gathers of one layer's parameters before its compute (`gathers` of them), beside
  // the compute that runs before; their ids.
  std::vector<std::uint64_t> gather_layer(RankNodes& nodes, const RankGroups& g,
                                          const std::string& name, int gathers) const {
    std::vector<std::uint64_t> ids;
    for (int k = 0; k < gathers; ++k)
      ids.push_back(nodes.beside(collective(name + " parameter all-gather " + std::to_string(k),
                                            core::ChakraCollective::kAllGather,
                                            work.layer_shard_bytes, g.data)));
    return ids;
  }

  // An op's place, for the tags of its context exchanges.
  struct OpAt {
    int rank = 0, microbatch = 0, chunk = 0;
    bool forward = true;
    bool weight_apart = false;  // a backward whose weights' gradient is a pass of its own
  };

  // The attention's share of a layer's compute, which context parallelism runs apart (a
  // recomputed attention's forward in backward's).
  struct Attention {
    double seconds = 0, flops = 0, recomputed_seconds = 0, recomputed_flops = 0;
  };
  Attention attention_share(const RankGroups& g, bool forward) const {
    if (g.context == 0) return {};
    if (forward) return {costs.layer_attention_forward, work.layer_attention_forward_flops};
    bool again = work.context_recomputed;
    return {costs.layer_attention_backward,
            work.layer_attention_backward_flops + (again ? work.layer_attention_forward_flops : 0),
            again ? costs.layer_attention_forward : 0,
            again ? work.layer_attention_forward_flops : 0};
  }

  // A context exchange's tag, unique to the op, the layer, the pass and the ring's step, above the
  // pipeline's tags.
  int context_tag(const OpAt& at, int layer, int pass, int step) const {
    const core::ModelSplit& s = state.split();
    long long op = (static_cast<long long>(at.microbatch) * s.chunks + at.chunk) * 2 + at.forward;
    long long tag =
        (((op * s.layers_per_chunk + layer) * 2 + pass) * s.context + step) + (1LL << 24);
    if (tag > std::numeric_limits<std::int32_t>::max())
      refuse("more context exchanges a step than Chakra's 32-bit tags number");
    return static_cast<int>(tag);
  }

  // Ring attention's pass of the key-value blocks (`parts` of a block each: 2 with their
  // gradient): each step the rank computes against the block it holds while it passes that block
  // to the next rank and takes the previous rank's; each step waits for the last one's blocks.
  void ring_pass(RankNodes& nodes, const RankGroups& g, const std::string& what, const OpAt& at,
                 int layer, int pass, int parts, double seconds, double flops) const {
    int n = work.context, left = g.context_left, right = g.context_right;
    double bytes = parts * work.context_block_bytes;
    std::vector<std::uint64_t> arrived;
    for (int k = 0; k < n; ++k) {
      std::vector<std::uint64_t> moving;
      std::string step = what + " key-value step " + std::to_string(k);
      if (k < n - 1) {  // the last block held goes no further
        int tag = context_tag(at, layer, pass, k);
        moving.push_back(
            nodes.beside(transfer(false, step + " receive", left, at.rank, tag, bytes), arrived));
        moving.push_back(
            nodes.beside(transfer(true, step + " send", at.rank, right, tag, bytes), arrived));
      }
      nodes.then(compute(step + " attention", seconds / n, flops / n), false, arrived);
      arrived = std::move(moving);
    }
  }

  // A layer's attention under context parallelism, before the rest of its compute: the ring's
  // passes, or Llama 3's all-gathers of every member's block (backward: again, and the blocks'
  // gradient reduce-scattered). A recomputed attention exchanges as forward first.
  void context_attention(RankNodes& nodes, const RankGroups& g, const std::string& what,
                         const OpAt& at, int layer, const Attention& a) const {
    double own_seconds = a.seconds - a.recomputed_seconds, own_flops = a.flops - a.recomputed_flops;
    if (work.context_ring) {
      if (a.recomputed_seconds > 0)
        ring_pass(nodes, g, what + " recomputed", at, layer, 0, 1, a.recomputed_seconds,
                  a.recomputed_flops);
      ring_pass(nodes, g, what, at, layer, 1, at.forward ? 1 : 2, own_seconds, own_flops);
      return;
    }
    double blocks = work.context_block_bytes * work.context;
    auto gather = [&](const std::string& name) {
      nodes.then(collective(name + " key-value all-gather", core::ChakraCollective::kAllGather,
                            blocks, g.context));
    };
    if (a.recomputed_seconds > 0) {
      gather(what + " recomputed");
      nodes.then(compute(what + " recomputed attention", a.recomputed_seconds, a.recomputed_flops));
    }
    gather(what);
    nodes.then(compute(what + " attention", own_seconds, own_flops));
    if (!at.forward)
      nodes.then(collective(what + " key-value gradient reduce-scatter",
                            core::ChakraCollective::kReduceScatter, blocks, g.context));
  }

  // Each layer's compute and tensor all-reduces. With ZeRO-2 and 3 (every micro-batch), the next
  // layer's parameter gathers run beside a layer's compute, and from ZeRO-2 on each layer's
  // gradient reduce-scatter beside what follows its backward.
  void layers(RankNodes& nodes, const RankGroups& g, const std::string& what, int count,
              const OpAt& at) const {
    const core::ModelSplit& s = state.split();
    bool forward = at.forward;
    // Zero bubble and DualPipeV leave some backwards' weight gradients to passes of their own.
    double apart = at.weight_apart ? 1 : 0;
    double seconds = forward ? costs.layer_forward_compute
                             : costs.layer_backward_compute - apart * costs.layer_weight_compute;
    double flops =
        forward ? work.layer_forward_flops : work.layer_backward_flops - apart * weight_flops();
    int allreduces = forward ? work.tensor_allreduces_forward : work.tensor_allreduces_backward;
    int gathers = forward ? work.gathers_forward : work.gathers_backward;
    std::vector<std::uint64_t> gathered = gather_layer(nodes, g, what + " layer 0", gathers);
    for (int layer = 0; layer < count; ++layer) {
      std::string name = what + " layer " + std::to_string(layer);
      std::vector<std::uint64_t> ready = std::move(gathered);
      if (layer + 1 < count)
        gathered = gather_layer(nodes, g, what + " layer " + std::to_string(layer + 1), gathers);
      Attention attention = attention_share(g, forward);
      if (g.context > 0) context_attention(nodes, g, name, at, layer, attention);
      nodes.then(compute(name, seconds - attention.seconds, flops - attention.flops), false, ready);
      if (!forward && work.reduce_per_microbatch)
        nodes.beside(collective(name + " gradient reduce-scatter",
                                core::ChakraCollective::kReduceScatter, work.layer_shard_bytes,
                                g.data));
      for (int k = 0; s.tensor > 1 && k < allreduces; ++k)
        nodes.then(collective(name + " tensor all-reduce " + std::to_string(k),
                              core::ChakraCollective::kAllReduce, work.activation_bytes, g.tensor));
    }
  }

  // A chunk's MoE layers' token dispatches and combines over the expert-parallel group: to the
  // experts, then back, each with its token copies' bytes (a replayer runs its own all-to-all,
  // without the deduplicated exchange's savings).
  void token_exchanges(RankNodes& nodes, const RankGroups& g, const std::string& what, int moe,
                       bool forward) const {
    int count = moe * (forward ? work.alltoalls_forward : work.alltoalls_backward);
    for (int k = 0; g.experts > 0 && k < count; ++k)
      nodes.then(collective(what + " token all-to-all " + std::to_string(k),
                            core::ChakraCollective::kAllToAll,
                            k % 2 == 0 ? work.dispatch_bytes : work.combine_bytes, g.experts));
  }

  double weight_flops() const {
    return costs.layer_weight_compute > 0 ? work.layer_weight_flops : 0;
  }

  // The zero-bubble schedule's weight pass: the gradients of the stage's layers' weights, compute
  // alone (the output layer's stay with its backward).
  void weight_pass(RankNodes& nodes, int rank, const core::PipeOp& op) const {
    int layers = core::chunk_layers(state.split(), state.coordinates(rank).stage, op.chunk);
    nodes.then(compute("microbatch " + std::to_string(op.microbatch) + " weight pass",
                       layers * costs.layer_weight_compute, layers * work.layer_weight_flops));
  }

  // A forward or backward of one micro-batch and chunk, with its receive and its send.
  void op(RankNodes& nodes, int rank, const RankGroups& g, const core::PipeOp& op) const {
    if (op.kind == core::PipeOp::Kind::kWeight) return weight_pass(nodes, rank, op);
    const core::ModelSplit& s = state.split();
    int stage = state.coordinates(rank).stage;
    int v = s.route().position(stage, op.chunk), last = virtual_stages() - 1;
    bool forward = op.kind == core::PipeOp::Kind::kForward;
    std::string what = "microbatch " + std::to_string(op.microbatch) + " chunk " +
                       std::to_string(op.chunk) + (forward ? " forward" : " backward");
    double bytes = work.activation_bytes;
    int from = forward ? v - 1 : v + 1, to = forward ? v + 1 : v - 1;
    // DualPipeV's turn on the last stage passes from one chunk to the other without a transfer.
    auto local = [&](int other) { return rank_at(rank, other) == rank; };
    if (from >= 0 && from <= last && !local(from))
      nodes.then(transfer(false, what + " receive", rank_at(rank, from), rank,
                          tag(op.microbatch, std::min(from, v), forward), bytes));
    if (!forward && v == last)
      nodes.then(compute(what + " output layer", 2 * costs.logit_forward, 0));
    int count = core::chunk_layers(s, stage, op.chunk);
    layers(nodes, g, what, count, {rank, op.microbatch, op.chunk, forward, op.weight_apart});
    token_exchanges(nodes, g, what, core::chunk_moe_layers(s, stage, op.chunk), forward);
    if (forward && v == last) nodes.then(compute(what + " output layer", costs.logit_forward, 0));
    if (to < 0 || to > last || local(to)) return;
    ChakraNode send = transfer(true, what + " send", rank, rank_at(rank, to),
                               tag(op.microbatch, std::min(to, v), forward), bytes);
    if (costs.blocking_transfers)
      nodes.then(std::move(send));
    else
      nodes.beside(std::move(send));
  }

  // The gradient's exchange over `group` (0: none): an all-reduce, or ZeRO-1's reduce-scatter and
  // all-gather, after everything the rank left running beside its schedule.
  void exchange(RankNodes& nodes, int group, double bytes, const std::string& prefix) const {
    if (group == 0) return;
    if (plan.parallelism->zero != 1) {
      nodes.then(collective(prefix + "gradient all-reduce", core::ChakraCollective::kAllReduce,
                            bytes, group),
                 true);
      return;
    }
    nodes.then(collective(prefix + "gradient reduce-scatter",
                          core::ChakraCollective::kReduceScatter, bytes, group),
               true);
    nodes.then(collective(prefix + "parameter all-gather", core::ChakraCollective::kAllGather,
                          bytes, group));
  }

  // The data groups' exchanges once every send is done (ZeRO-2: the updated parameters'
  // all-gather; ZeRO-3: none), then the optimizer's update.
  void step_end(RankNodes& nodes, const RankGroups& g) const {
    if (work.reduce_per_microbatch) {
      if (g.data > 0 && work.data_volume > 0)
        nodes.then(collective("parameter all-gather", core::ChakraCollective::kAllGather,
                              work.gradient_bytes, g.data),
                   true);
    } else {
      exchange(nodes, g.data, work.gradient_bytes, "");
      exchange(nodes, g.expert_data, work.expert_gradient_bytes, "expert ");
    }
    nodes.then(compute("optimizer step", costs.optimizer, work.optimizer_flops), true);
  }

  // `dims`' group of `rank`, numbered; 0 for a group of one.
  int group_id(int rank, std::initializer_list<core::ParallelDim> dims) const {
    std::vector<int> members = state.group(rank, dims);
    return members.size() > 1 ? groups.id_of(members) : 0;
  }

  std::vector<ChakraNode> rank_program(int rank) const {
    using Dim = core::ParallelDim;
    const core::ModelSplit& s = state.split();
    std::vector<ChakraNode> out;
    RankNodes nodes(out);
    RankGroups g;
    g.tensor = groups.id_of(state.group(rank, {Dim::kTensor}));
    g.context = group_id(rank, {Dim::kContext});
    if (g.context > 0) {  // the ring's neighbours, found once for every layer's passes
      std::vector<int> ring = state.group(rank, {Dim::kContext});
      auto me = std::find(ring.begin(), ring.end(), rank) - ring.begin();
      auto n = static_cast<std::ptrdiff_t>(ring.size());
      g.context_left = ring[(me + n - 1) % n];
      g.context_right = ring[(me + 1) % n];
    }
    g.data = group_id(rank, {Dim::kContext, Dim::kExpert, Dim::kData});
    if (plan.parallelism->expert > 1) {
      g.experts = group_id(rank, {Dim::kExpert});
      g.expert_data = group_id(rank, {Dim::kData});
    }
    for (const core::PipeOp& o :
         core::stage_schedule(plan.parallelism->schedule, state.coordinates(rank).stage, s.pipeline,
                              s.microbatches, s.chunks))
      op(nodes, rank, g, o);
    step_end(nodes, g);
    return out;
  }
};

// A data-parallel rank: its step's compute, then the all-reduce of its gradients.
std::vector<ChakraNode> data_parallel_rank(const core::Plan& plan, double compute_s, int everyone) {
  std::vector<ChakraNode> out;
  RankNodes nodes(out);
  nodes.then(compute("forward and backward", compute_s, 0));
  if (plan.training.workers > 1)
    nodes.then(collective("gradient all-reduce", core::ChakraCollective::kAllReduce,
                          plan.gradient_bytes(), everyone));
  return out;
}

}  // namespace

namespace {

// Builds each rank's nodes in turn and hands them to `take`: one rank's in memory at a time (a
// 175B plan's 1,024 ranks hold millions of nodes). The groups they name are added to `named`.
void for_each_rank(const core::Plan& plan, std::map<int, std::vector<int>>& named,
                   const std::function<void(int, std::vector<ChakraNode>)>& take) {
  GroupIds groups(named);
  if (!plan.parallelism) {
    std::vector<int> everyone(static_cast<std::size_t>(plan.training.workers));
    for (int r = 0; r < plan.training.workers; ++r) everyone[r] = r;
    int world = groups.id_of(everyone);
    double compute_s = predict_analytic(plan).phases.compute_s;
    for (int r = 0; r < plan.training.workers; ++r)
      take(r, data_parallel_rank(plan, compute_s, world));
    return;
  }
  const core::ParallelState state = core::ParallelState::of(plan);
  ModelParallelCosts costs = model_parallel_costs(plan, state);
  core::ModelParallelWork work = core::model_parallel_work(plan, state.split());
  StageProgram stages{plan, state, costs, work, groups};
  for (int r = 0; r < state.world_size(); ++r) take(r, stages.rank_program(r));
}

}  // namespace

void check_chakra(const core::Plan& plan) {
  check_supported(plan);
  if (plan.parallelism) core::check_memory_fits(plan);
}

ChakraProgram chakra_program(const core::Plan& plan) {
  check_chakra(plan);
  ChakraProgram program;
  for_each_rank(plan, program.groups, [&program](int, std::vector<ChakraNode> nodes) {
    program.ranks.push_back(std::move(nodes));
  });
  return program;
}

int write_chakra(const core::Plan& plan, const std::string& dir) {
  check_chakra(plan);
  std::filesystem::create_directories(dir);
  std::vector<ChakraAttribute> metadata = {ChakraAttribute::string("schema", kChakraSchema),
                                           ChakraAttribute::string("producer", "scaleout"),
                                           ChakraAttribute::string("plan", plan.file)};
  std::map<int, std::vector<int>> named;
  int ranks = 0;
  for_each_rank(plan, named, [&](int r, std::vector<ChakraNode> nodes) {
    std::string stream;
    core::append_delimited(stream, core::encode_global_metadata(metadata));
    for (const ChakraNode& n : nodes) core::append_delimited(stream, core::encode_node(n));
    core::write_file_atomic(dir + "/scaleout." + std::to_string(r) + ".et", stream);
    ++ranks;
  });
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [id, members] : named) groups[std::to_string(id)] = members;
  core::write_file_atomic(dir + "/comm_group.json", groups.dump(1) + "\n");
  return ranks;
}

}  // namespace scaleout::sim
