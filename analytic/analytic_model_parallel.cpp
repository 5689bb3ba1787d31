#include "analytic/analytic_model_parallel.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "analytic/analytic.hpp"
#include "core/model/compute_rate.hpp"
#include "core/model/model_memory.hpp"
#include "core/model/model_parallel_work.hpp"
#include "core/model/overlap_slowdown.hpp"
#include "core/model/pair_overlap.hpp"
#include "core/model/token_exchange.hpp"
#include "core/model/transformer.hpp"
#include "core/model/transport.hpp"
#include "core/parallel/parallel_state.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/plan/topology.hpp"
#include "core/programs/strategies/all_to_all.hpp"
#include "core/results/model_parallel_outcome.hpp"

namespace scaleout::sim {

namespace {

using core::Plan;

// One all-reduce of `bytes` over the tensor group: ranks 0..t-1, consecutive, as Megatron places
// them (inside a node when it fits), with a ring as NCCL runs it there.
double tensor_allreduce(const Plan& plan, int tensor, double bytes) {
  if (tensor < 2) return 0;
  Plan g = core::group_plan(plan, tensor, core::StrategyKind::kRing);
  return AnalyticModel(g.cluster, tensor).exchange_time(g, bytes);
}

// The data group's exchange: its ranks sit `tensor` apart, so a node holds dpn / tensor of them
// (at least one), and the tensor groups of a node exchange at once, sharing its NICs. `kind`: the
// plan's strategy, or the ring that ZeRO-2 and ZeRO-3 run.
double data_exchange(const Plan& plan, const core::ModelSplit& s, double bytes,
                     core::StrategyKind kind) {
  if (s.data < 2) return 0;
  Plan g = core::group_plan(plan, s.data, kind);
  int dpn = std::max(1, plan.cluster.devices_per_node);
  if (g.cluster.network.kind != core::NetworkKind::kExplicit) {
    g.cluster.devices_per_node = std::max(1, dpn / s.tensor);
    g.cluster.nic.bandwidth /= std::min(s.tensor, dpn);
  }
  return AnalyticModel(g.cluster, core::devices_needed(g)).exchange_time(g, bytes);
}

// One step of `group` (ranks placed as the closed forms place them: rank r on device r) in which
// each member sends `bytes` to the member k after it: as long as its slowest pair over the
// topology's path between them; the pairs that leave a node share its NICs (not each device's own
// links inside it) with the node's other devices doing the same (every group of the node exchanges
// at once). Network-model latency
// factors are not applied.
double shift_seconds(const Plan& plan, const core::Topology& topo, const std::vector<int>& group,
                     int k, double bytes) {
  int n = static_cast<int>(group.size());
  int dpn = std::max(1, plan.cluster.devices_per_node);
  auto across = [&](int i) {
    return topo.node_of_device(group[i]) != topo.node_of_device(group[(i + k) % n]);
  };
  int crossing = 0;
  for (int i = 0; i < n; ++i) crossing += across(i);
  double sharing = std::max(1.0, static_cast<double>(dpn) * crossing / n);
  double slowest = 0;
  const core::Transport& transport = plan.cluster.transport;
  for (int i = 0; i < n; ++i) {
    int from = group[i], to = group[(i + k) % n];
    core::Topology::Cost cost = topo.device_cost(from, to);
    double rate = cost.bandwidth, wait = 0;
    // The node's rails are shared by its crossing transfers; each device's own links are not.
    // The transport's window bounds each transfer (striped over the rails between nodes, a window
    // each); between nodes a rendezvous holds it above the eager limit.
    double window = core::window_rate(transport, cost.latency, across(i) ? topo.rails() : 1);
    if (across(i)) {
      int a = topo.node_of_device(from), b = topo.node_of_device(to);
      rate = std::min(rate, topo.node_cost(a, b).bandwidth / sharing);
      wait = core::rendezvous_seconds(transport, bytes, cost.latency);
    }
    slowest = std::max(slowest, cost.latency + wait + bytes / std::min(rate, window));
  }
  return slowest;
}

// One all-to-all (core/programs/strategies/all_to_all.hpp) of `bytes` a device over rank 0's
// expert-parallel group. Pairwise: n - 1 steps of bytes / n. Hierarchical, g members a node over
// m nodes: g - 1 steps inside the node of the m segments for one place, then m - 1 steps across
// nodes between members of one place, each the g segments its node holds for the other;
// deduplicated, as hierarchical with each step across carrying its node's distinct tokens only
// (core::node_distinct_share of the g segments).
double expert_alltoall(const Plan& plan, const core::ParallelState& state, double bytes) {
  std::vector<int> group = state.group(0, {core::ParallelDim::kExpert});
  int n = static_cast<int>(group.size());
  if (n < 2) return 0;
  core::Topology topo = core::Topology::build(plan.cluster, state.world_size());
  double segment = bytes / n, total = 0;
  core::ExpertAllToAll kind = plan.parallelism->expert_alltoall;
  if (kind == core::ExpertAllToAll::kPairwise) {
    for (int k = 1; k < n; ++k) total += shift_seconds(plan, topo, group, k, segment);
    return total;
  }
  std::vector<int> nodes;
  for (int r : group) nodes.push_back(topo.node_of_device(r));
  int per_node = core::members_per_node(nodes);
  if (per_node == 0)
    throw std::invalid_argument(
        "parallelism.expert_alltoall: the two-level exchange needs each expert group's ranks to "
        "sit in runs of equal length on distinct nodes, and the explicit network places rank 0's "
        "otherwise");
  int spanned = n / per_node;
  double share = kind == core::ExpertAllToAll::kDeduplicated
                     ? core::node_distinct_share(*plan.workload.transformer->moe, spanned)
                     : 1.0;
  std::vector<int> inside(group.begin(), group.begin() + per_node), across;
  for (int i = 0; i < n; i += per_node) across.push_back(group[i]);
  for (int k = 1; k < per_node; ++k)
    total += shift_seconds(plan, topo, inside, k, spanned * segment);
  for (int k = 1; k < spanned; ++k)
    total += shift_seconds(plan, topo, across, k, share * per_node * segment);
  return total;
}

// Context parallelism (core/programs/strategies/model_parallel_context.cpp), over rank 0's context
// group: the ring's n - 1 steps, each a block passed on beside 1/n of the attention's compute, or
// an all-gather (and backward a reduce-scatter) of n - 1 ring steps before the attention computes.
void set_context_costs(const Plan& plan, const core::ParallelState& state,
                       const core::ModelParallelWork& w, ModelParallelCosts& c) {
  if (w.context < 2) return;
  std::vector<int> group = state.group(0, {core::ParallelDim::kContext});
  core::Topology topo = core::Topology::build(plan.cluster, state.world_size());
  int n = w.context;
  double peak = plan.cluster.device.flops;
  double forward = w.layer_attention_forward_flops / peak;
  double backward = w.layer_attention_backward_flops / peak;
  double step = shift_seconds(plan, topo, group, 1, w.context_block_bytes);
  double again = w.context_recomputed ? 1 : 0;  // a recomputed attention exchanges again
  c.layer_attention_forward = forward;
  c.layer_attention_backward = backward + again * forward;
  if (w.context_ring) {
    double step2 = shift_seconds(plan, topo, group, 1, 2 * w.context_block_bytes);
    double s = c.overlap_slowdown;  // what a step's block adds beyond the compute beside it
    auto beyond = [s](double compute, double block) {
      return core::span_beside(compute, block, s) - compute;
    };
    c.layer_context_forward = (n - 1) * beyond(forward / n, step);
    c.layer_context_backward =
        again * c.layer_context_forward + (n - 1) * beyond(backward / n, step2);
    return;
  }
  double gather = (n - 1) * step;
  c.layer_context_forward = gather;
  c.layer_context_backward = (again + 2) * gather;  // gathers, then the gradient's reduce-scatter
}

// The experts' gradient exchange over their data group: data / expert ranks, tensor x expert
// apart.
double expert_data_exchange(const Plan& plan, const core::ModelSplit& s, int expert, double bytes) {
  if (expert < 2 || bytes <= 0) return 0;
  core::ModelSplit group = s;
  group.data = s.data / expert;
  group.tensor = s.tensor * expert;
  return data_exchange(plan, group, bytes, plan.strategy.kind);
}

// The tensor group's collectives of a layer, forward and backward: after its compute, or with
// tp_comm_overlap the first of `tensor` chunks before it and the rest beside it (exposed: the
// first chunk's and what the compute does not hide). `allreduce`: seconds by bytes.
void set_tensor_costs(const core::ModelParallelWork& w, int tensor,
                      const std::function<double(double)>& allreduce, ModelParallelCosts& c) {
  // With context parallelism the attention runs before, beside its own exchanges.
  double forward = c.layer_forward_compute - c.layer_attention_forward;
  double backward = c.layer_backward_compute - c.layer_attention_backward;
  if (!w.tp_comm_overlap) {
    c.layer_tensor_forward = w.tensor_allreduces_forward * allreduce(w.activation_bytes);
    c.layer_tensor_backward = w.tensor_allreduces_backward * allreduce(w.activation_bytes);
    return;
  }
  double head = allreduce(w.activation_bytes / tensor);
  double rest = allreduce(w.activation_bytes * (tensor - 1) / tensor);
  c.layer_tensor_beside_forward = w.tensor_allreduces_forward * rest;
  c.layer_tensor_beside_backward = w.tensor_allreduces_backward * rest;
  double s = c.overlap_slowdown;
  c.layer_tensor_forward = w.tensor_allreduces_forward * head +
                           core::span_beside(forward, c.layer_tensor_beside_forward, s) - forward;
  c.layer_tensor_backward = w.tensor_allreduces_backward * head +
                            core::span_beside(backward, c.layer_tensor_beside_backward, s) -
                            backward;
}

// The ranks that sum a gradient (core::gradient_split) as data_exchange places them. DualPipe's
// mirror stages on other nodes: each node holds a stage's data group at most, and every group of
// the node crosses its NICs at once.
core::ModelSplit gradient_group(const Plan& plan, const core::ParallelState& state) {
  const core::ModelSplit& s = state.split();
  core::ModelSplit g = core::gradient_split(s);
  if (g.data == s.data) return g;
  core::RankCoords first{}, mirror{};
  mirror.stage = s.pipeline - 1;
  if (state.packed_node_of(state.rank_of(first)) != state.packed_node_of(state.rank_of(mirror)))
    g.tensor = std::max(s.tensor, std::max(1, plan.cluster.devices_per_node) / s.data);
  return g;
}

}  // namespace

ModelParallelCosts model_parallel_costs(const Plan& plan, const core::ParallelState& state,
                                        GroupTimes* cache) {
  const core::ModelSplit& s = state.split();
  const core::ModelSplit g = gradient_group(plan, state);
  core::ModelParallelWork w = core::model_parallel_work(plan, s);
  double peak = plan.cluster.device.flops;
  auto tensor_time = [&](double bytes) {
    if (!cache) return tensor_allreduce(plan, s.tensor, bytes);
    auto [it, fresh] = cache->tensor.try_emplace({s.tensor, bytes}, 0.0);
    if (fresh) it->second = tensor_allreduce(plan, s.tensor, bytes);
    return it->second;
  };
  auto data_time = [&] {
    if (!cache) return data_exchange(plan, g, w.gradient_bytes, plan.strategy.kind);
    auto [it, fresh] = cache->data.try_emplace({g.data, g.tensor, w.gradient_bytes}, 0.0);
    if (fresh) it->second = data_exchange(plan, g, w.gradient_bytes, plan.strategy.kind);
    return it->second;
  };
  // A ring's all-gather (or reduce-scatter) is half its all-reduce.
  auto ring_gather = [&](double bytes) {
    if (bytes <= 0) return 0.0;
    if (!cache) return data_exchange(plan, g, bytes, core::StrategyKind::kRing) / 2;
    auto [it, fresh] = cache->ring.try_emplace({g.data, g.tensor, bytes}, 0.0);
    if (fresh) it->second = data_exchange(plan, g, bytes, core::StrategyKind::kRing) / 2;
    return it->second;
  };
  ModelParallelCosts c;
  c.overlap_slowdown = plan.cluster.device.overlap_slowdown;
  c.layer_forward_compute = w.layer_forward_flops / peak;
  c.layer_backward_compute = w.layer_backward_flops / peak;
  if (core::splits_backward(plan.parallelism->schedule))
    c.layer_weight_compute = w.layer_weight_flops / peak;
  set_context_costs(plan, state, w, c);
  set_tensor_costs(w, s.tensor, tensor_time, c);
  c.logit_forward = w.logit_forward_flops / peak;
  c.transfer = core::stage_transfers(plan, state, w.activation_bytes);
  c.data_bytes = w.gradient_bytes;
  int expert = plan.parallelism->expert;
  if (w.reduce_per_microbatch) {  // ZeRO-2 and 3: rings throughout; ZeRO-2 gathers at the end
    double layer = ring_gather(w.layer_shard_bytes);
    c.layer_gather_forward = w.gathers_forward * layer;
    c.layer_gather_backward = w.gathers_backward * layer;
    c.layer_reduce = layer;
    c.data_exchange = 2 * w.data_volume * ring_gather(w.gradient_bytes);
  } else if (w.overlap_grad_reduce) {  // buckets during backward; ZeRO-1's gather after
    bool zero1 = plan.parallelism->zero == 1;
    c.overlap = walk_gradient_overlap(
        plan, state, w,
        {c.layer_forward_compute - c.layer_attention_forward, c.layer_tensor_beside_forward},
        {c.layer_backward_compute - c.layer_attention_backward, c.layer_tensor_beside_backward},
        [&](double bytes) {
          return zero1 ? ring_gather(bytes) : data_exchange(plan, s, bytes, plan.strategy.kind);
        });
    // The parameters' gather after the schedule, unless the next iteration's forwards take it.
    c.data_exchange = (zero1 && !w.overlap_param_gather ? ring_gather(w.gradient_bytes) : 0) +
                      expert_data_exchange(plan, g, expert, w.expert_gradient_bytes);
  } else {
    c.data_exchange =
        (data_time() + expert_data_exchange(plan, g, expert, w.expert_gradient_bytes)) *
        w.data_volume;
  }
  c.optimizer = w.optimizer_flops / peak;
  c.blocking_transfers = core::blocking_stage_transfers(plan);
  core::AllToAllSeconds alltoall;
  if (expert > 1)
    alltoall = {expert_alltoall(plan, state, w.dispatch_bytes),
                expert_alltoall(plan, state, w.combine_bytes)};
  double both_ways = alltoall.to_experts + alltoall.back;  // the all-to-alls come in such pairs
  c.moe_layer_expert_forward = w.alltoalls_forward / 2 * both_ways;
  c.moe_layer_expert_backward = w.alltoalls_backward / 2 * both_ways;
  if (core::is_dualpipe(s.schedule) && both_ways > 0) {
    c.pair_work = w;
    c.peak = peak;
    c.alltoall = alltoall;
  }
  return c;
}

namespace {

bool sharded(const ModelParallelCosts& c) { return c.layer_reduce > 0; }

// A forward of `layers` layers, and a backward: with ZeRO-2 and 3, their collectives beside.
// With context parallelism a sharded layer's attention and its exchanges run alone, before the
// rest of its compute meets the collectives: a layer's own time, as its tensor collectives are.
double layers_forward(const ModelParallelCosts& c, int layers) {
  if (!sharded(c))
    return layers * (c.layer_forward_compute + c.layer_context_forward + c.layer_tensor_forward);
  double alone = c.layer_attention_forward + c.layer_context_forward + c.layer_tensor_forward;
  return core::sharded_layers_seconds(layers, c.layer_forward_compute - c.layer_attention_forward,
                                      alone, c.layer_gather_forward, 0, c.overlap_slowdown);
}

double layers_backward(const ModelParallelCosts& c, int layers) {
  if (!sharded(c))
    return layers * (c.layer_backward_compute + c.layer_context_backward + c.layer_tensor_backward);
  double alone = c.layer_attention_backward + c.layer_context_backward + c.layer_tensor_backward;
  return core::sharded_layers_seconds(layers, c.layer_backward_compute - c.layer_attention_backward,
                                      alone, c.layer_gather_backward, c.layer_reduce,
                                      c.overlap_slowdown);
}

// What ZeRO-2's and 3's per-layer collectives add to a stage of `layers` layers, each micro-batch
// and chunk: the part of them that its compute does not hide.
double exposed_sharding(const ModelParallelCosts& c, int layers) {
  if (!sharded(c)) return 0;
  double bare =
      layers * (c.layer_forward_compute + c.layer_context_forward + c.layer_tensor_forward +
                c.layer_backward_compute + c.layer_context_backward + c.layer_tensor_backward);
  return layers_forward(c, layers) + layers_backward(c, layers) - bare;
}

// The seconds of each overlapped F&B pair (core/model/pair_overlap.hpp): its slots, then both
// passes' tensor all-reduces; negative for a pair that runs one op after the other. A pair's
// seconds depend only on its two chunks' layers and MoE layers, which of them holds the output
// layer and whether its backward leaves the weights apart: each such pair is worked out once per
// walk.
std::function<double(int, const core::PipeOp&, const core::PipeOp&)> overlapped_pair_seconds(
    const core::ModelSplit& s, const ModelParallelCosts& c) {
  using Key = std::tuple<int, int, int, int, bool, bool, bool>;
  auto known = std::make_shared<std::map<Key, double>>();
  return [s, c, known](int stage, const core::PipeOp& forward, const core::PipeOp& backward) {
    const core::ModelParallelWork& w = *c.pair_work;
    if (!core::overlaps_pair(w, forward)) return -1.0;
    core::PipeRoute route = s.route();
    bool output[2] = {route.holds_output_layer(stage, forward.chunk),
                      route.holds_output_layer(stage, backward.chunk)};
    int layers[2] = {core::chunk_layers(s, stage, forward.chunk),
                     core::chunk_layers(s, stage, backward.chunk)};
    int moe[2] = {core::chunk_moe_layers(s, stage, forward.chunk),
                  core::chunk_moe_layers(s, stage, backward.chunk)};
    auto [it, fresh] = known->try_emplace(
        Key{layers[0], layers[1], moe[0], moe[1], output[0], output[1], backward.weight_apart},
        0.0);
    if (!fresh) return it->second;
    double logits = w.logit_forward_flops;
    std::vector<core::PairSlot> slots = core::pair_slots(
        core::pass_pieces(w, layers[0], moe[0], true, false, output[0] ? logits : 0.0),
        core::pass_pieces(w, layers[1], moe[1], false, backward.weight_apart,
                          output[1] ? 2 * logits : 0.0));
    it->second = core::pair_seconds(slots, c.peak, c.alltoall, c.overlap_slowdown) +
                 layers[0] * c.layer_tensor_forward + layers[1] * c.layer_tensor_backward;
    return it->second;
  };
}

}  // namespace

PipeCosts pipe_costs(const core::ParallelState& state, const ModelParallelCosts& c) {
  const core::ModelSplit& s = state.split();
  int layers = s.layers_per_chunk;
  PipeCosts p =
      uniform_costs(s.pipeline, s.chunks, layers_forward(c, layers), layers_backward(c, layers), 0);
  // Uneven stages, the embedding or the loss counted as layers: those chunks' own layers.
  bool differ = core::stages_differ(s);
  for (int stage = 0; differ && stage < s.pipeline; ++stage)
    for (int chunk = 0; chunk < s.chunks; ++chunk) {
      int own = core::chunk_layers(s, stage, chunk);
      if (own == layers) continue;
      p.forward[stage][chunk] = layers_forward(c, own);
      p.backward[stage][chunk] = layers_backward(c, own);
    }
  // Each chunk's MoE layers' all-to-alls.
  for (int stage = 0; c.moe_layer_expert_forward > 0 && stage < s.pipeline; ++stage)
    for (int chunk = 0; chunk < s.chunks; ++chunk) {
      int moe = core::chunk_moe_layers(s, stage, chunk);
      p.forward[stage][chunk] += moe * c.moe_layer_expert_forward;
      p.backward[stage][chunk] += moe * c.moe_layer_expert_backward;
    }
  if (c.layer_weight_compute > 0) {  // zero bubble: each backward's weight pass as an op apart
    p.weight.assign(s.pipeline, std::vector<double>(s.chunks, 0.0));
    for (int stage = 0; stage < s.pipeline; ++stage)
      for (int chunk = 0; chunk < s.chunks; ++chunk) {
        double weight = core::chunk_layers(s, stage, chunk) * c.layer_weight_compute;
        p.weight[stage][chunk] = weight;
        p.backward[stage][chunk] -= weight;
      }
  }
  p.transfer = c.transfer;
  p.op_extra = c.overlap.op_extra;
  if (c.blocking_transfers) {  // one chunk a stage: forwards send down, backwards up
    for (int stage = 0; stage < s.pipeline; ++stage) {
      if (stage < s.pipeline - 1) p.forward[stage][0] += c.transfer[stage];
      if (stage > 0) p.backward[stage][0] += c.transfer[stage - 1];
    }
    p.transfer.assign(p.transfer.size(), 0.0);  // arrived when the send returns
  }
  if (c.pair_work) p.pair = overlapped_pair_seconds(s, c);
  // The output layer runs after the model's last chunk (DualPipe: each copy's).
  for (int stage = 0; stage < s.pipeline; ++stage)
    for (int chunk = 0; chunk < s.chunks; ++chunk)
      if (s.route().holds_output_layer(stage, chunk)) {
        p.forward[stage][chunk] += c.logit_forward;
        p.backward[stage][chunk] += 2 * c.logit_forward;
      }
  return p;
}

double chunk_expert(const core::ModelSplit& s, const ModelParallelCosts& c, int stage, int chunk) {
  return core::chunk_moe_layers(s, stage, chunk) *
         (c.moe_layer_expert_forward + c.moe_layer_expert_backward);
}

double blocked_sending(const core::ModelSplit& s, const ModelParallelCosts& c, int stage) {
  if (!c.blocking_transfers || s.pipeline < 2) return 0;
  return (stage < s.pipeline - 1 ? c.transfer[stage] : 0) + (stage > 0 ? c.transfer[stage - 1] : 0);
}

PipeTiming time_plan_pipeline(const Plan& plan, const core::ParallelState& state,
                              const ModelParallelCosts& c) {
  const core::ModelSplit& s = state.split();
  return time_pipeline(plan.parallelism->schedule, s.pipeline, s.microbatches, s.chunks,
                       pipe_costs(state, c));
}

core::RunResult predict_model_parallel(const Plan& plan, GroupTimes* cache) {
  auto wall0 = std::chrono::steady_clock::now();
  core::check_memory_fits(plan);
  const core::ParallelState state = core::ParallelState::of(plan);
  const core::ModelSplit& s = state.split();
  ModelParallelCosts c = model_parallel_costs(plan, state, cache);
  PipeTiming timing = time_plan_pipeline(plan, state, c);
  int busiest = static_cast<int>(std::max_element(timing.busy.begin(), timing.busy.end()) -
                                 timing.busy.begin());
  double microbatches = s.chunk_microbatches();  // each chunk's
  double runs = microbatches * core::stage_layers(s, busiest);
  core::ModelParallelPhases ph;
  ph.tensor = runs * (c.layer_tensor_forward + c.layer_tensor_backward);
  ph.context = runs * (c.layer_context_forward + c.layer_context_backward);
  // Less what DualPipe's overlapped pairs hid.
  ph.expert = -timing.hidden[busiest];
  for (int chunk = 0; chunk < s.chunks; ++chunk)
    ph.expert += microbatches * chunk_expert(s, c, busiest, chunk);
  double sharding =
      microbatches * s.chunks * exposed_sharding(c, core::chunk_layers(s, busiest, 0));
  if (!core::chunks_alike(s, busiest)) {
    sharding = 0;
    for (int chunk = 0; chunk < s.chunks; ++chunk)
      sharding += microbatches * exposed_sharding(c, core::chunk_layers(s, busiest, chunk));
  }
  // A stage waiting on its own sends is idle, as the simulated program's records count it.
  double blocked = microbatches * blocked_sending(s, c, busiest);
  // overlap_grad_reduce: each stage's waiting buckets after its last op.
  double iteration = timing.iteration, overlapped = 0, tail = 0;
  if (!c.overlap.tail.empty()) {
    for (int st = 0; st < s.pipeline; ++st)
      iteration = std::max(iteration, timing.stages[st].back().end + c.overlap.tail[st]);
    tail = c.overlap.tail[busiest];
    overlapped = c.overlap.exposed[busiest] - tail;
  }
  ph.compute = timing.busy[busiest] - ph.tensor - ph.expert - ph.context - sharding - blocked -
               overlapped + c.optimizer;
  ph.bubble = iteration - timing.busy[busiest] - tail + blocked;
  ph.pipeline = core::pipeline_transfers(state, c.transfer);
  ph.data = c.data_exchange + sharding + overlapped + tail;
  ph.data_bytes = c.data_bytes;
  ph.step = iteration + c.data_exchange + c.optimizer;
  core::RunResult r = core::model_parallel_result(plan, "analytic", ph);
  if (plan.strategy.kind == core::StrategyKind::kPs && s.data > 1)
    r.warnings.push_back(
        "each data group's parameter servers are modelled as the plan's servers for that group "
        "alone; the simulator does not run this plan to check it");
  std::vector<int> experts = state.group(0, {core::ParallelDim::kExpert});
  if (experts.size() > 1 &&
      state.packed_node_of(experts.front()) != state.packed_node_of(experts.back()))
    r.warnings.push_back(
        "the expert-parallel all-to-alls cross nodes: the closed form times their steps in "
        "lockstep, a lower bound (SimGrid, whose steps drift apart, took 1.04x as long with 8 "
        "ranks over 2 nodes): simulate the plan for their time");
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

}  // namespace scaleout::sim
