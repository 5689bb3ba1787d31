#include "core/model/model_parallel_work.hpp"

#include <algorithm>

#include "core/model/compute_rate.hpp"
#include "core/model/device_compute.hpp"
#include "core/model/model_memory.hpp"
#include "core/model/overlap_slowdown.hpp"
#include "core/model/shape_efficiency.hpp"
#include "core/model/token_exchange.hpp"
#include "core/model/transformer.hpp"
#include "core/model/transport.hpp"
#include "core/parallel/model_split.hpp"
#include "core/programs/gradient_buckets.hpp"

namespace scaleout::core {

namespace {

// Each matrix product at the efficiency of its size: when the workload gives the table and no
// measured throughput or training.efficiency replaces the workload's efficiency.
bool by_shape(const Plan& plan) {
  return !plan.workload.efficiency_by_size.empty() && !plan.training.efficiency &&
         !measured_throughput(plan);
}

// The device's compute model, its seconds as effective FLOPs (seconds x peak), as every engine
// charges them. The engines charge the output layer's backward as twice its forward: a third of
// its forward and backward together stands for its forward, so that the two add up.
void device_work(const Plan& plan, const ModelSplit& s, ModelParallelWork& w) {
  const DeviceSpec& d = plan.cluster.device;
  const TransformerShape& tf = *plan.workload.transformer;
  int sequence_split = plan.parallelism->sequence_parallel ? s.tensor : 1;
  LayerSeconds layer = layer_seconds(d, tf, s.microbatch, s.tensor, sequence_split,
                                     plan.parallelism->expert, s.context);
  w.layer_forward_flops = layer.forward * d.flops;
  w.layer_backward_flops = layer.backward * d.flops;
  w.layer_attention_forward_flops = layer.attention_forward * d.flops;
  w.layer_attention_backward_flops = layer.attention_backward * d.flops;
  w.layer_weight_flops = layer.weight_backward * d.flops;
  if (plan.parallelism->recompute == Recompute::kSelective)
    w.layer_backward_flops +=
        recomputed_seconds(layer, plan.parallelism->recompute_modules) * d.flops;
  TransformerShape local = tf;  // the device's tokens of each sequence
  local.sequence = tf.sequence / s.context;
  LayerSeconds logits = logit_seconds(d, local, s.microbatch, s.tensor);
  w.logit_forward_flops = (logits.forward + logits.backward) / 3 * d.flops;
}

// Megatron-Core's all-to-all token dispatcher: with sequence parallelism each rank of a tensor
// group dispatches its 1/t of the micro-batch's tokens, top_k copies of each (padded to the
// capacity factor), to the ranks of its expert-parallel group; the busiest receives `imbalance`
// times the mean. They go at to_experts_element_bytes and come back at 16 bits.
void add_expert_exchanges(const Plan& plan, const ModelSplit& s, ModelParallelWork& w) {
  const Parallelism& par = *plan.parallelism;
  const TransformerShape& tf = *plan.workload.transformer;
  if (par.expert < 2) return;
  const MoeShape& m = *tf.moe;
  double tokens = static_cast<double>(s.microbatch) * tf.sequence / s.tensor;
  double padding = m.capacity_factor > 0 ? m.capacity_factor : 1.0;
  double copies = tokens * m.top_k * padding * m.imbalance * tf.hidden;
  w.dispatch_bytes = copies * to_experts_element_bytes(par);
  w.combine_bytes = copies * kActivationBytes;
  w.moe_mlp_share = moe_mlp_share(tf);
  if (par.recompute == Recompute::kFull) w.alltoalls_backward = 4;
}

// Selective recomputation of the core attention (Megatron-Core's default module).
bool recomputes_attention(const Parallelism& par) {
  return par.recompute == Recompute::kSelective && par.recompute_modules.core_attn;
}

// ZeRO-2 and ZeRO-3 (see ModelParallelWork): the worst stage's parameters spread evenly over the
// layers of a stage, gathered and reduce-scattered a layer at a time each micro-batch.
void add_sharded_exchanges(const Plan& plan, const ModelSplit& s, ModelParallelWork& w) {
  const Parallelism& par = *plan.parallelism;
  if (par.zero < 2 || s.data < 2) return;
  w.layer_shard_bytes = w.gradient_bytes / (static_cast<double>(s.layers_per_chunk) * s.chunks);
  w.reduce_per_microbatch = true;
  w.data_volume = par.zero == 2 ? 0.5 : 0.0;
  if (par.zero < 3) return;
  bool fsdp = par.framework == Framework::kFsdp;
  w.gathers_forward = 1;
  w.gathers_backward = par.recompute == Recompute::kFull && !fsdp ? 2 : 1;
}

// Context parallelism: the keys and values of the device's tokens (its key-value heads' share).
void add_context_exchanges(const Plan& plan, const ModelSplit& s, ModelParallelWork& w) {
  if (s.context < 2) return;
  const TransformerShape& tf = *plan.workload.transformer;
  const Parallelism& par = *plan.parallelism;
  w.context = s.context;
  w.context_ring = par.context_exchange == ContextExchange::kRing;
  double tokens = static_cast<double>(s.microbatch) * tf.sequence / s.context;
  w.context_block_bytes = tokens * key_value_width(tf) / s.tensor * kActivationBytes;
  w.context_recomputed = par.recompute != Recompute::kNone;
}

}  // namespace

double sharded_layers_seconds(int layers, double compute, double tensor, double gather,
                              double reduce, double slowdown) {
  if (layers < 1) return 0;
  double total = gather + reduce + layers * tensor;  // the first gather, the last reduce-scatter
  if (layers == 1) return total + compute;
  // The first layer computes beside the second's gathers, the last beside the one before's
  // reduce-scatter, and every layer between beside both.
  auto beside = [&](double communication) { return span_beside(compute, communication, slowdown); };
  return total + beside(gather) + (layers - 2) * beside(gather + reduce) + beside(reduce);
}

ModelParallelWork model_parallel_work(const Plan& plan) {
  return model_parallel_work(plan, model_split(plan));
}

ModelParallelWork model_parallel_work(const Plan& plan, const ModelSplit& s) {
  const TransformerShape& tf = *plan.workload.transformer;
  const Parallelism& par = *plan.parallelism;
  ModelParallelWork w;
  if (compute_from_device(plan)) {
    device_work(plan, s, w);
  } else if (by_shape(plan)) {
    const Workload& wl = plan.workload;
    w.layer_forward_flops = layer_forward_effective_flops(wl, s.microbatch, s.tensor);
    w.layer_backward_flops = 2 * w.layer_forward_flops;
    double attention =
        layer_forward_effective_flops(wl, s.microbatch, s.tensor, true) - w.layer_forward_flops;
    w.layer_weight_flops = w.layer_forward_flops - attention;  // a weight's product, once more
    if (recomputes_attention(par))  // the attention's two s x s products again
      w.layer_backward_flops += attention;
    w.logit_forward_flops = logit_forward_effective_flops(wl, s.microbatch, s.tensor);
  } else {  // context parallelism: 1/context of every product, the attention's too (balanced)
    double per_device =
        static_cast<double>(s.microbatch) / s.tensor / s.context / compute_efficiency(plan);
    w.layer_forward_flops = per_device * layer_forward_flops(tf);
    if (par.expert > 1)  // the busiest expert-parallel rank's extra tokens
      w.layer_forward_flops +=
          per_device * (tf.moe->imbalance - 1) * layer_expert_forward_flops(tf);
    w.layer_backward_flops = 2 * w.layer_forward_flops;
    // The attention's two s x s products.
    w.layer_attention_forward_flops = per_device * 4.0 * tf.sequence * tf.sequence * tf.hidden;
    w.layer_attention_backward_flops = 2 * w.layer_attention_forward_flops;
    w.layer_weight_flops = w.layer_forward_flops - w.layer_attention_forward_flops;
    if (recomputes_attention(par))  // the attention's products again
      w.layer_backward_flops += w.layer_attention_forward_flops;
    w.logit_forward_flops = per_device * logit_forward_flops(tf);
  }
  if (plan.compute_left_out)
    w.layer_forward_flops = w.layer_backward_flops = w.logit_forward_flops =
        w.layer_attention_forward_flops = w.layer_attention_backward_flops = w.layer_weight_flops =
            0;
  if (par.recompute == Recompute::kFull) {
    w.layer_backward_flops += w.layer_forward_flops;
    w.tensor_allreduces_backward = 4;
  }
  w.activation_bytes =
      static_cast<double>(s.microbatch) * tf.sequence / s.context * tf.hidden * kActivationBytes;
  // The worst stage's dense parameters and, apart, its experts' (the worst of each).
  double worst = 0, experts = 0;
  bool differ = stages_differ(s);
  for (int stage = 0; stage < s.pipeline; ++stage) {
    if (!differ && stage > 0 && stage < s.pipeline - 1) continue;  // the ends differ, the rest not
    double own = par.expert > 1 ? stage_expert_parameters(plan, s, stage) : 0;
    worst = std::max(worst, stage_parameters(plan, s, stage) - own);
    experts = std::max(experts, own);
  }
  w.gradient_bytes = worst * plan.training.gradient_bytes_per_element;
  w.expert_gradient_bytes = experts * plan.training.gradient_bytes_per_element;
  add_sharded_exchanges(plan, s, w);
  add_expert_exchanges(plan, s, w);
  add_context_exchanges(plan, s, w);
  w.tp_comm_overlap = par.tp_comm_overlap && s.tensor > 1;
  if (par.overlap_grad_reduce && s.data > 1) {
    w.overlap_grad_reduce = true;
    double parameters = par.bucket_size > 0 ? par.bucket_size : megatron_bucket_parameters(s.data);
    w.bucket_bytes = parameters * plan.training.gradient_bytes_per_element;
    w.overlap_param_gather = par.overlap_param_gather && par.zero == 1;
  }
  if (compute_from_device(plan) && !plan.compute_left_out) {
    double shard = experts == 0    ? worst / (par.zero >= 1 ? s.data : 1)
                   : par.zero >= 1 ? worst / s.data + experts / (s.data / par.expert)
                                   : worst + experts;
    w.optimizer_flops = optimizer_seconds(plan.cluster.device, shard) * plan.cluster.device.flops;
  }
  return w;
}

namespace {

// Activations of one micro-batch across the boundary after `stage`. Each sender's part is a flow
// under the transport's window (its route: the two device links, and between nodes the two NICs,
// striped over the rails) and, between nodes, waits its rendezvous above the eager limit.
double stage_transfer(const Plan& plan, const ParallelState& state, int stage, double bytes) {
  const Cluster& c = plan.cluster;
  const ModelSplit& s = state.split();
  int senders = transfer_parts(plan, s.tensor);
  double part = bytes / senders;
  if (!state.boundary_crosses_nodes(stage)) {
    double window = window_rate(c.transport, 2 * c.intra_node.latency);
    return c.intra_node.latency + part / std::min(c.intra_node.bandwidth, window);
  }
  double node_bytes =
      bytes * std::min<long long>(state.devices_per_node(), state.ranks_per_stage()) / senders;
  double route = 2 * (c.intra_node.latency + c.nic.latency);
  double windowed = part / window_rate(c.transport, route, c.nics_per_node);
  return c.nic.latency + rendezvous_seconds(c.transport, part, route) +
         std::max(node_bytes / (c.nic.bandwidth * c.nics_per_node), windowed);
}

}  // namespace

bool blocking_stage_transfers(const Plan& plan) {
  return plan.parallelism && plan.parallelism->framework == Framework::kDeepSpeed;
}

int transfer_parts(const Plan& plan, int tensor) {
  return blocking_stage_transfers(plan) ? 1 : tensor;
}

std::vector<double> stage_transfers(const Plan& plan, const ParallelState& state, double bytes) {
  const ModelSplit& s = state.split();
  std::vector<double> transfer;
  for (int stage = 0; stage < s.pipeline; ++stage)
    transfer.push_back(s.pipeline > 1 ? stage_transfer(plan, state, stage, bytes) : 0);
  return transfer;
}

double pipeline_transfers(const ParallelState& state, const std::vector<double>& transfer) {
  const ModelSplit& s = state.split();
  if (s.pipeline < 2) return 0;
  // The boundary after the last stage carries the interleaved schedule's wrap only (DualPipeV
  // turns on the last stage instead).
  bool wraps = s.chunks > 1 && s.schedule == PipelineScheduleKind::kInterleaved;
  double boundaries = 0;
  for (int b = 0; b < s.pipeline - (wraps ? 0 : 1); ++b) boundaries += transfer[b];
  // DualPipe's micro-batches go one way each, half of them each way.
  int passes = s.schedule == PipelineScheduleKind::kDualPipe ? 1 : s.chunks;
  return 2.0 * s.microbatches * passes * boundaries / s.pipeline;
}

Plan group_plan(const Plan& plan, int workers, StrategyKind kind) {
  Plan g = plan;
  g.parallelism.reset();
  g.training.global_batch = 0;
  g.training.workers = workers;
  g.strategy.kind = kind;
  g.strategy.grid.reset();
  g.stragglers = {};
  g.resilience = {};
  return g;
}

}  // namespace scaleout::core
