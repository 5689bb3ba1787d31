#include "core/results/model_parallel_outcome.hpp"

#include <algorithm>

#include "core/model/compute_rate.hpp"
#include "core/model/model_memory.hpp"
#include "core/model/transformer.hpp"
#include "core/parallel/model_split.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/reliability/goodput.hpp"

namespace scaleout::core {

namespace {

constexpr int kListedSteps = 1000;  // as the data-parallel closed form lists them

ModelParallelOutcome outcome(const Plan& plan, const ModelSplit& s, const ModelParallelPhases& ph) {
  const Parallelism& par = *plan.parallelism;
  ModelParallelOutcome mp;
  // `data`: Megatron's data-parallel degree, which the context group's ranks are beside.
  mp.tensor = s.tensor, mp.pipeline = s.pipeline, mp.data = s.replicas();
  mp.context = s.context;
  if (s.context > 1)
    mp.context_exchange = par.context_exchange == ContextExchange::kRing ? "ring" : "allgather";
  mp.context_comm_s = ph.context;
  if (par.expert > 1) {
    mp.expert_alltoall = expert_alltoall_name(par.expert_alltoall);
    mp.expert_dispatch_precision = par.expert_dispatch_fp8 ? "fp8" : "bf16";
  }
  // The plan's virtual stages (DualPipe's and DualPipeV's two chunks a stage are their schedules').
  mp.microbatch = s.microbatch, mp.microbatches = s.microbatches;
  mp.virtual_stages = par.virtual_stages;
  bool differ = stages_differ(s), kinds_differ = layer_kinds_differ(s);
  for (int stage = 0; stage < s.pipeline && differ; ++stage)
    mp.stage_layers.push_back(stage_layers(s, stage));
  for (int stage = 0; stage < s.pipeline && kinds_differ; ++stage)
    mp.stage_moe_layers.push_back(stage_moe_layers(s, stage));
  mp.schedule = schedule_name(par.schedule);
  mp.recompute = recompute_name(par.recompute);
  mp.sequence_parallel = par.sequence_parallel, mp.zero = par.zero;
  mp.overlap_grad_reduce = par.overlap_grad_reduce;
  mp.overlap_param_gather = par.overlap_param_gather;
  mp.tp_comm_overlap = par.tp_comm_overlap;
  mp.tensor_comm_s = ph.tensor;
  mp.expert_comm_s = ph.expert;
  mp.expert = par.expert;
  mp.bubble_s = ph.bubble;
  mp.pipeline_comm_s = ph.pipeline;
  mp.data_comm_s = ph.data;
  const TransformerShape& tf = *plan.workload.transformer;
  double sequences_per_s = s.global_batch / ph.step;
  mp.tokens_per_s = sequences_per_s * tf.sequence;
  mp.parameters = transformer_parameters(tf);
  mp.active_parameters = active_parameters(tf);
  mp.model_flops_per_s_per_device =
      model_flops_per_sequence(tf) * sequences_per_s / plan.training.workers;
  mp.mfu = mp.model_flops_per_s_per_device / plan.cluster.device.flops;
  mp.megatron_flops_per_s_per_device =
      megatron_flops_per_sequence(tf) * sequences_per_s / plan.training.workers;
  mp.memory = worst_stage_memory(plan, s);
  return mp;
}

}  // namespace

ModelParallelPhases phases_from_records(
    const std::vector<std::vector<ModelParallelStepTimes>>& records, double step) {
  auto busy = [](const std::vector<ModelParallelStepTimes>& r) {
    double sum = 0;
    for (const auto& t : r) sum += t.compute_s + t.tensor_s + t.expert_s + t.context_s;
    return sum;
  };
  auto busiest = std::max_element(records.begin(), records.end(),
                                  [&](const auto& a, const auto& b) { return busy(a) < busy(b); });
  ModelParallelPhases ph;
  ph.step = step;
  if (busiest == records.end() || busiest->empty()) return ph;
  double steps = static_cast<double>(busiest->size());
  for (const auto& t : *busiest) {
    ph.compute += t.compute_s / steps;
    ph.tensor += t.tensor_s / steps;
    ph.expert += t.expert_s / steps;
    ph.context += t.context_s / steps;
    ph.data += t.data_s / steps;
  }
  ph.bubble = std::max(0.0, step - ph.compute - ph.tensor - ph.expert - ph.context - ph.data);
  return ph;
}

RunResult model_parallel_result(const Plan& plan, const std::string& engine,
                                const ModelParallelPhases& ph) {
  ModelSplit s = model_split(plan);
  ModelParallelOutcome mp = outcome(plan, s, ph);
  int servers = plan.strategy.kind == StrategyKind::kPs ? plan.strategy.ps_servers : 0;
  RunResult r = result_header(plan, engine, plan.cluster.network_model, servers);
  r.bytes = ph.data_bytes;
  r.step_time_s = ph.step;
  r.phases.compute_s = ph.compute;
  r.phases.comm_s = ph.tensor + ph.expert + ph.context + ph.pipeline + ph.data;
  r.phases.exposed_comm_s =
      std::min(r.phases.comm_s, std::max(0.0, ph.step - ph.compute - ph.bubble));
  r.phases.idle_s = ph.bubble;
  r.throughput_samples_per_s = s.global_batch / ph.step;
  // The share of the step a device spends on model FLOPs at its achieved rate.
  r.scaling_efficiency = mp.mfu / compute_efficiency(plan);
  // ZeRO-2 and 3's data time, and overlap_grad_reduce's, is what the compute leaves exposed of
  // many collectives: no one exchange's bandwidth to give.
  if (ph.data > 0 && plan.parallelism->zero < 2 && !plan.parallelism->overlap_grad_reduce) {
    int d = s.data;  // the exchange's ranks: context x data
    r.algbw_Bps = ph.data_bytes / ph.data;
    r.busbw_Bps = r.algbw_Bps * 2.0 * (d - 1) / d;
  }
  for (int i = 0; i < std::min(plan.training.steps, kListedSteps); ++i)
    r.steps.push_back({i, ph.step});
  r.gradients.applied = static_cast<long>(mp.data) * plan.training.steps;
  r.model_parallel = mp;
  if (plan.reliability) r.reliability = reliability_outcome(plan, ph.step);
  if (plan.training.overlap)
    r.warnings.push_back(
        "training.overlap is not read by model-parallel plans: the data group's exchange starts "
        "once the pipeline has drained (Megatron-LM's default) unless "
        "parallelism.overlap_grad_reduce is true");
  if (!r.model_parallel->stage_moe_layers.empty())  // chunks of other layer kinds
    r.warnings.push_back(
        "some pipeline chunks hold another share of MoE layers than the model: their all-to-alls, "
        "parameters and memory follow their own layers, but each layer computes as the model's "
        "mean layer (dense and MoE layers' compute averaged)");
  return r;
}

}  // namespace scaleout::core
