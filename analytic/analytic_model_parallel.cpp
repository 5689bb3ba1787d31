#include "analytic/analytic_model_parallel.hpp"

#include <algorithm>
#include <chrono>

#include "analytic/analytic.hpp"
#include "core/compute_rate.hpp"
#include "core/model_memory.hpp"
#include "core/model_parallel_outcome.hpp"
#include "core/model_parallel_work.hpp"
#include "core/parallel_state.hpp"
#include "core/pipeline_schedule.hpp"
#include "core/rank_plan.hpp"
#include "core/topology.hpp"
#include "core/transformer.hpp"

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
// (at least one), and the tensor groups of a node exchange at once, sharing its NICs.
double data_exchange(const Plan& plan, const core::ModelSplit& s, double bytes) {
  if (s.data < 2) return 0;
  Plan g = core::group_plan(plan, s.data, plan.strategy.kind);
  int dpn = std::max(1, plan.cluster.devices_per_node);
  if (g.cluster.network.kind != core::NetworkKind::kExplicit) {
    g.cluster.devices_per_node = std::max(1, dpn / s.tensor);
    g.cluster.nic.bandwidth /= std::min(s.tensor, dpn);
  }
  return AnalyticModel(g.cluster, core::devices_needed(g)).exchange_time(g, bytes);
}

}  // namespace

ModelParallelCosts model_parallel_costs(const Plan& plan, const core::ParallelState& state,
                                        GroupTimes* cache) {
  const core::ModelSplit& s = state.split();
  core::ModelParallelWork w = core::model_parallel_work(plan, s);
  double peak = plan.cluster.device.flops;
  auto tensor_time = [&] {
    if (!cache) return tensor_allreduce(plan, s.tensor, w.activation_bytes);
    auto [it, fresh] = cache->tensor.try_emplace({s.tensor, w.activation_bytes}, 0.0);
    if (fresh) it->second = tensor_allreduce(plan, s.tensor, w.activation_bytes);
    return it->second;
  };
  auto data_time = [&] {
    if (!cache) return data_exchange(plan, s, w.gradient_bytes);
    auto [it, fresh] = cache->data.try_emplace({s.data, s.tensor, w.gradient_bytes}, 0.0);
    if (fresh) it->second = data_exchange(plan, s, w.gradient_bytes);
    return it->second;
  };
  double allreduce = tensor_time();
  ModelParallelCosts c;
  c.layer_forward_compute = w.layer_forward_flops / peak;
  c.layer_backward_compute = w.layer_backward_flops / peak;
  c.layer_tensor_forward = w.tensor_allreduces_forward * allreduce;
  c.layer_tensor_backward = w.tensor_allreduces_backward * allreduce;
  c.logit_forward = w.logit_forward_flops / peak;
  c.transfer = core::stage_transfers(plan, state, w.activation_bytes);
  c.data_bytes = w.gradient_bytes;
  c.data_exchange = data_time() * w.data_volume;
  c.optimizer = w.optimizer_flops / peak;
  return c;
}

PipeCosts pipe_costs(const core::ParallelState& state, const ModelParallelCosts& c) {
  const core::ModelSplit& s = state.split();
  double layers = s.layers_per_chunk;
  PipeCosts p = uniform_costs(s.pipeline, s.chunks,
                              layers * (c.layer_forward_compute + c.layer_tensor_forward),
                              layers * (c.layer_backward_compute + c.layer_tensor_backward), 0);
  p.transfer = c.transfer;
  // The output layer runs after the last chunk of the last stage.
  p.forward[s.pipeline - 1][s.chunks - 1] += c.logit_forward;
  p.backward[s.pipeline - 1][s.chunks - 1] += 2 * c.logit_forward;
  return p;
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
  double runs = static_cast<double>(s.microbatches) * s.chunks * s.layers_per_chunk;
  core::ModelParallelPhases ph;
  ph.tensor = runs * (c.layer_tensor_forward + c.layer_tensor_backward);
  ph.compute = timing.busy[busiest] - ph.tensor + c.optimizer;
  ph.bubble = timing.iteration - timing.busy[busiest];
  ph.pipeline = core::pipeline_transfers(state, c.transfer);
  ph.data = c.data_exchange;
  ph.data_bytes = c.data_bytes;
  ph.step = timing.iteration + c.data_exchange + c.optimizer;
  core::RunResult r = core::model_parallel_result(plan, "analytic", ph);
  if (plan.strategy.kind == core::StrategyKind::kPs && s.data > 1)
    r.warnings.push_back(
        "each data group's parameter servers are modelled as the plan's servers for that group "
        "alone; the simulator does not run this plan to check it");
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

}  // namespace scaleout::sim
