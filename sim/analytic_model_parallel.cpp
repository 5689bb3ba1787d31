#include "sim/analytic_model_parallel.hpp"

#include <algorithm>
#include <chrono>

#include "core/compute_rate.hpp"
#include "core/model_memory.hpp"
#include "core/model_split.hpp"
#include "core/pipeline_schedule.hpp"
#include "core/rank_plan.hpp"
#include "core/topology.hpp"
#include "core/transformer.hpp"
#include "sim/analytic.hpp"

namespace scaleout::sim {

namespace {

using core::Plan;

constexpr double kActivationBytes = 2;  // 16-bit activations cross the tensor and pipeline links
constexpr int kListedSteps = 1000;      // as the data-parallel closed form lists them

// The plan as `workers` ranks doing only a gradient exchange with `kind` (a group's collective).
Plan group_plan(const Plan& plan, int workers, core::StrategyKind kind) {
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

// One all-reduce of `bytes` over the tensor group: ranks 0..t-1, consecutive, as Megatron places
// them (inside a node when it fits), with a ring as NCCL runs it there.
double tensor_allreduce(const Plan& plan, int tensor, double bytes) {
  if (tensor < 2) return 0;
  Plan g = group_plan(plan, tensor, core::StrategyKind::kRing);
  return AnalyticModel(g.cluster, tensor).exchange_time(g, bytes);
}

// The data group's exchange: its ranks sit `tensor` apart, so a node holds dpn / tensor of them
// (at least one), and the tensor groups of a node exchange at once, sharing its NICs.
double data_exchange(const Plan& plan, const core::ModelSplit& s, double bytes) {
  if (s.data < 2) return 0;
  Plan g = group_plan(plan, s.data, plan.strategy.kind);
  g.strategy = plan.strategy;
  g.strategy.grid.reset();
  int dpn = std::max(1, plan.cluster.devices_per_node);
  if (g.cluster.network.kind != core::NetworkKind::kExplicit) {
    g.cluster.devices_per_node = std::max(1, dpn / s.tensor);
    g.cluster.nic.bandwidth /= std::min(s.tensor, dpn);
  }
  double t = AnalyticModel(g.cluster, core::devices_needed(g)).exchange_time(g, bytes);
  int zero = plan.parallelism->zero;
  return zero >= 3 ? 1.5 * t : t;  // ZeRO-3 gathers the parameters again in forward
}

// Activations of one micro-batch to the next stage. Across nodes, a node's share of the stage's
// tensor groups send at once through its NICs; inside a node each rank sends its 1/t share.
double stage_transfer(const Plan& plan, const core::ModelSplit& s, double bytes) {
  if (s.pipeline < 2) return 0;
  const core::Cluster& c = plan.cluster;
  int dpn = std::max(1, c.devices_per_node);
  long long stage_ranks = static_cast<long long>(s.tensor) * s.data;
  if (stage_ranks < dpn && c.network.kind != core::NetworkKind::kExplicit)
    return c.intra_node.latency + bytes / s.tensor / c.intra_node.bandwidth;
  double node_bytes = bytes * std::min<long long>(dpn, stage_ranks) / s.tensor;
  return c.nic.latency + node_bytes / (c.nic.bandwidth * c.nics_per_node);
}

double worst_stage_parameters(const Plan& plan, int stages) {
  return std::max(core::stage_parameters(plan, 0), core::stage_parameters(plan, stages - 1));
}

}  // namespace

ModelParallelCosts model_parallel_costs(const Plan& plan) {
  const core::TransformerShape& tf = *plan.workload.transformer;
  const core::Parallelism& par = *plan.parallelism;
  core::ModelSplit s = core::model_split(plan);
  double rate = plan.cluster.device.flops * core::compute_efficiency(plan);
  double b = s.microbatch, t = s.tensor;
  ModelParallelCosts c;
  c.layer_forward_compute = b * core::layer_forward_flops(tf) / t / rate;
  c.layer_backward_compute = 2 * c.layer_forward_compute;
  if (par.recompute == core::Recompute::kFull) c.layer_backward_compute += c.layer_forward_compute;
  if (par.recompute == core::Recompute::kSelective)  // the attention's s x s products again
    c.layer_backward_compute += b * 4.0 * tf.sequence * tf.sequence * tf.hidden / t / rate;
  double activation = b * tf.sequence * tf.hidden * kActivationBytes;
  double allreduce = tensor_allreduce(plan, s.tensor, activation);
  c.layer_tensor_forward = 2 * allreduce;
  c.layer_tensor_backward = (par.recompute == core::Recompute::kFull ? 4 : 2) * allreduce;
  c.logit_forward = b * core::logit_forward_flops(tf) / t / rate;
  c.transfer = stage_transfer(plan, s, activation);
  c.data_bytes =
      worst_stage_parameters(plan, s.pipeline) * plan.training.gradient_bytes_per_element;
  c.data_exchange = data_exchange(plan, s, c.data_bytes);
  return c;
}

PipeCosts pipe_costs(const Plan& plan, const ModelParallelCosts& c) {
  core::ModelSplit s = core::model_split(plan);
  double layers = s.layers_per_chunk;
  PipeCosts p = uniform_costs(s.pipeline, s.chunks,
                              layers * (c.layer_forward_compute + c.layer_tensor_forward),
                              layers * (c.layer_backward_compute + c.layer_tensor_backward),
                              c.transfer);
  // The output layer runs after the last chunk of the last stage.
  p.forward[s.pipeline - 1][s.chunks - 1] += c.logit_forward;
  p.backward[s.pipeline - 1][s.chunks - 1] += 2 * c.logit_forward;
  return p;
}

core::RunResult predict_model_parallel(const Plan& plan) {
  auto wall0 = std::chrono::steady_clock::now();
  core::check_memory_fits(plan);
  const core::Parallelism& par = *plan.parallelism;
  core::ModelSplit s = core::model_split(plan);
  ModelParallelCosts c = model_parallel_costs(plan);
  PipeTiming timing = time_pipeline(par.schedule, s.pipeline, s.microbatches, s.chunks,
                                    pipe_costs(plan, c));
  int busiest = static_cast<int>(
      std::max_element(timing.busy.begin(), timing.busy.end()) - timing.busy.begin());
  double runs = static_cast<double>(s.microbatches) * s.chunks * s.layers_per_chunk;
  double step = timing.iteration + c.data_exchange;

  core::ModelParallelOutcome mp;
  mp.tensor = s.tensor, mp.pipeline = s.pipeline, mp.data = s.data;
  mp.microbatch = s.microbatch, mp.microbatches = s.microbatches, mp.virtual_stages = s.chunks;
  mp.schedule = core::schedule_name(par.schedule);
  mp.recompute = core::recompute_name(par.recompute);
  mp.sequence_parallel = par.sequence_parallel, mp.zero = par.zero;
  mp.tensor_comm_s = runs * (c.layer_tensor_forward + c.layer_tensor_backward);
  mp.bubble_s = timing.iteration - timing.busy[busiest];
  mp.pipeline_comm_s = s.pipeline > 1 ? 2 * s.microbatches * s.chunks * c.transfer : 0;
  mp.data_comm_s = c.data_exchange;
  const core::TransformerShape& tf = *plan.workload.transformer;
  double model_flops = core::model_flops_per_sequence(tf) * s.global_batch;
  mp.tokens_per_s = s.global_batch * static_cast<double>(tf.sequence) / step;
  mp.model_flops_per_s_per_device = model_flops / step / plan.training.workers;
  mp.mfu = mp.model_flops_per_s_per_device / plan.cluster.device.flops;
  mp.megatron_flops_per_s_per_device =
      core::megatron_flops_per_sequence(tf) * s.global_batch / step / plan.training.workers;
  mp.memory = core::worst_stage_memory(plan);

  core::RunResult r = core::result_header(plan, "analytic", plan.cluster.network_model,
                                          plan.strategy.kind == core::StrategyKind::kPs
                                              ? plan.strategy.ps_servers
                                              : 0);
  r.bytes = c.data_bytes;
  r.step_time_s = step;
  r.phases.compute_s = timing.busy[busiest] - mp.tensor_comm_s;
  r.phases.comm_s = mp.tensor_comm_s + mp.pipeline_comm_s + mp.data_comm_s;
  r.phases.exposed_comm_s = mp.tensor_comm_s + mp.data_comm_s;
  r.phases.idle_s = mp.bubble_s;
  r.throughput_samples_per_s = s.global_batch / step;
  // The share of the step a device spends on model FLOPs at its achieved rate.
  r.scaling_efficiency = mp.mfu / core::compute_efficiency(plan);
  if (c.data_exchange > 0) {
    r.algbw_Bps = c.data_bytes / c.data_exchange;
    r.busbw_Bps = r.algbw_Bps * 2.0 * (s.data - 1) / s.data;
  }
  for (int i = 0; i < std::min(plan.training.steps, kListedSteps); ++i) r.steps.push_back({i, step});
  r.gradients.applied = static_cast<long>(s.data) * plan.training.steps;
  r.model_parallel = mp;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

}  // namespace scaleout::sim
