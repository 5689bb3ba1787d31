// validate_model_parallel (declared in model_parallel_loader.hpp): the checks that span a
// model-parallel plan's parts, run once the command line's overrides are applied.
#include <algorithm>
#include <string>
#include <vector>

#include "core/model/device_compute.hpp"
#include "core/model/transformer.hpp"
#include "core/parallel/parallel_state.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/framework.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/model_parallel_loader.hpp"
#include "core/programs/strategies/all_to_all.hpp"
#include "core/programs/strategies/ps_training.hpp"

namespace scaleout::core {

namespace {

constexpr long long kMaxPipelineOps = 1 << 24;

std::string str(long long v) { return std::to_string(v); }

void check_tensor(const Plan& plan, const Parallelism& p, const TransformerShape& t) {
  auto fail = [&](const std::string& what) {
    throw InputError(plan.file, p.tensor_line ? p.tensor_line : p.line, "parallelism.tensor", what);
  };
  if (t.heads % p.tensor != 0)
    fail("tensor " + str(p.tensor) + " does not divide the model's " + str(t.heads) + " heads");
  if (t.kv_heads % p.tensor != 0)
    fail("tensor " + str(p.tensor) + " does not divide the model's " + str(t.kv_heads) +
         " key-value heads");
  int dpn = plan.cluster.devices_per_node;
  if (plan.cluster.network.kind != NetworkKind::kExplicit && dpn % p.tensor != 0 &&
      p.tensor % dpn != 0)
    fail("a tensor group of " + str(p.tensor) + " would straddle nodes of " + str(dpn) +
         " devices (give a divisor or a multiple of " + str(dpn) + ")");
}

// Megatron-Core's uneven first and last stages: the stages between share the rest evenly.
void check_uneven_stages(const Plan& plan, const Parallelism& p, const TransformerShape& t) {
  auto fail = [&](const std::string& what) {
    throw InputError(plan.file, p.stage_layers_line ? p.stage_layers_line : p.line,
                     "parallelism.first_stage_layers", what);
  };
  if (p.pipeline < 2) fail("uneven stages need pipeline 2 or more");
  int rest = t.layers - p.first_stage_layers - p.last_stage_layers;
  // DualPipe's and DualPipeV's counts are the model's first and last positions' (model_split.hpp).
  bool positions = is_dualpipe(p.schedule);
  int between = positions ? PipeRoute(p.schedule, p.pipeline, 2).positions() : p.pipeline;
  int middle = between - (p.first_stage_layers > 0) - (p.last_stage_layers > 0);
  if (rest < middle || (middle == 0 && rest != 0) || (middle > 0 && rest % middle != 0))
    fail("the model's " + str(t.layers) + " layers less the first and last stages' leave " +
         str(rest) + ", which do not split evenly into the " + str(middle) +
         (positions ? " chunks between (" + std::string(schedule_name(p.schedule)) +
                          "'s first and last stages are the model's first and last chunks)"
                    : " stages between"));
  // Megatron-Core gives each virtual stage (chunk) of a stage an equal share of its layers.
  int v = p.virtual_stages;
  auto splits = [v](int n) { return n % v == 0; };
  if (v > 1 && (!splits(p.first_stage_layers) || !splits(p.last_stage_layers) ||
                (middle > 0 && !splits(rest / middle))))
    fail("with " + str(v) + " virtual stages each stage's layers split evenly over its chunks " +
         "(Megatron-Core's rule): the first stage's " + str(p.first_stage_layers) +
         ", the last's " + str(p.last_stage_layers) + " and the " +
         str(middle > 0 ? rest / middle : 0) + " of each stage between must be multiples of " +
         str(v));
}

// Megatron-Core's accounting of the embedding and the loss as layers: the layers and those two
// split evenly over every stage's chunks (its get_num_layers_to_build; uneven stages excluded).
void check_split_accounting(const Plan& plan, const Parallelism& p, const TransformerShape& t) {
  auto fail = [&](const std::string& what) {
    throw InputError(plan.file, p.split_accounting_line ? p.split_accounting_line : p.line,
                     p.embedding_in_split ? "parallelism.account_for_embedding_in_pipeline_split"
                                          : "parallelism.account_for_loss_in_pipeline_split",
                     what);
  };
  if (p.pipeline < 2) fail("accounting for the embedding or the loss needs pipeline 2 or more");
  if (p.first_stage_layers > 0 || p.last_stage_layers > 0)
    fail(
        "give either first_stage_layers/last_stage_layers or the embedding and loss accounted "
        "as layers, not both (Megatron-Core refuses the pair too)");
  int units = t.layers + p.embedding_in_split + p.loss_in_split;
  long long chunks = static_cast<long long>(p.pipeline) * p.virtual_stages;
  if (units % chunks != 0)
    fail("the model's " + str(t.layers) + " layers and the " +
         str(p.embedding_in_split + p.loss_in_split) + " counted as layers (" + str(units) +
         ") do not split evenly into " + str(p.pipeline) + " stages x " + str(p.virtual_stages) +
         " virtual stages");
}

// How the error of uneven layers names a stage's chunks (DualPipe's are one stage's, twice).
std::string chunk_words(PipelineScheduleKind schedule, long long per_stage) {
  if (schedule == PipelineScheduleKind::kDualPipe) return "";
  if (schedule == PipelineScheduleKind::kDualPipeV) return " x 2 chunks (dualpipev's two a stage)";
  return " x " + str(per_stage) + " virtual stages";
}

// DualPipeV's V and DualPipe's two copies: the first stage (and DualPipe's last) holds both ends of
// the model (core::PipeRoute), so uneven layers are given by position, not by Megatron's flags.
void check_dualpipe(const Plan& plan, const Parallelism& p) {
  if (!is_dualpipe(p.schedule)) return;
  if (p.embedding_in_split || p.loss_in_split)
    throw InputError(plan.file, p.schedule_line ? p.schedule_line : p.line, "parallelism.schedule",
                     std::string(schedule_name(p.schedule)) +
                         "'s first stage holds both the first and the last chunk, so the "
                         "account_for_* options do not apply: give first_stage_layers and "
                         "last_stage_layers (the model's first and last chunks' layers)");
}

void check_stages(const Plan& plan, const Parallelism& p, const TransformerShape& t) {
  if (p.virtual_stages > 1 && p.schedule != PipelineScheduleKind::kInterleaved)
    throw InputError(plan.file, p.virtual_line, "parallelism.virtual_stages",
                     "virtual stages need schedule: interleaved");
  check_dualpipe(plan, p);
  if (p.embedding_in_split || p.loss_in_split) return check_split_accounting(plan, p, t);
  if (p.first_stage_layers > 0 || p.last_stage_layers > 0) return check_uneven_stages(plan, p, t);
  // The positions the layers split into (DualPipe's stages hold two copies' chunks).
  long long chunks =
      PipeRoute(p.schedule, p.pipeline, schedule_chunks(p.schedule, p.virtual_stages)).positions();
  if (t.layers % chunks != 0)
    throw InputError(plan.file, p.pipeline_line ? p.pipeline_line : p.line, "parallelism.pipeline",
                     "the model's " + str(t.layers) + " layers do not split evenly into " +
                         str(p.pipeline) + " stages" +
                         chunk_words(p.schedule, chunks / p.pipeline));
}

// The deduplicated all-to-all counts a token's nodes from its routing groups: whole groups on each
// node, or each group over whole nodes.
void check_groups_on_nodes(const Plan& plan, int nodes) {
  const MoeShape& m = *plan.workload.transformer->moe;
  if (m.groups == 0 || nodes < 2 || m.groups % nodes == 0 || nodes % m.groups == 0) return;
  throw InputError(plan.file, m.line, "workload.transformer.moe.groups",
                   str(m.groups) + " routing groups neither divide nor are divided by the " +
                       str(nodes) + " nodes an expert group spans (deduplicated all-to-all)");
}

// The hierarchical and deduplicated all-to-alls run inside nodes, then across them: every expert
// group must hold the same number of ranks on each of its nodes, in runs (as ranks fill nodes in
// order; an explicit network's placement is checked when the program starts).
void check_expert_alltoall(const Plan& plan, const Parallelism& p) {
  if (p.expert == 1 && p.expert_dispatch_fp8)
    throw InputError(plan.file, p.expert_dispatch_precision_line,
                     "parallelism.expert_dispatch_precision",
                     "fp8 sends the experts' tokens: give parallelism.expert > 1");
  if (p.expert_alltoall == ExpertAllToAll::kPairwise) return;
  std::string name = expert_alltoall_name(p.expert_alltoall);
  auto fail = [&](const std::string& what) {
    throw InputError(plan.file, p.expert_alltoall_line ? p.expert_alltoall_line : p.line,
                     "parallelism.expert_alltoall", what);
  };
  if (p.expert == 1) fail(name + " exchanges the experts' tokens: give parallelism.expert > 1");
  if (plan.cluster.network.kind == NetworkKind::kExplicit) return;
  ParallelDegrees degrees;
  degrees.tensor = p.tensor;
  degrees.context = p.context;
  degrees.expert = p.expert;
  degrees.pipeline = p.pipeline;
  degrees.data = plan.training.workers / (p.tensor * p.pipeline * p.context * p.expert);
  ParallelState state(degrees, RankPacking{std::max(1, plan.cluster.devices_per_node), false});
  for (const std::vector<int>& group : state.groups({ParallelDim::kExpert})) {
    std::vector<int> nodes;
    for (int r : group) nodes.push_back(state.packed_node_of(r));
    int per_node = members_per_node(nodes);
    if (per_node > 0 && p.expert_alltoall == ExpertAllToAll::kDeduplicated)
      check_groups_on_nodes(plan, p.expert / per_node);
    if (per_node == 0)
      fail(name +
           " needs each expert group to hold the same number of ranks on each of its "
           "nodes; the group of ranks " +
           str(group.front()) + " to " + str(group.back()) + " does not with " +
           str(state.devices_per_node()) +
           " devices a node: give tensor x expert ranks that divide a node or fill whole nodes");
  }
}

// Recomputed modules that the model holds.
void check_recompute_modules(const Plan& plan, const Parallelism& p, const TransformerShape& t) {
  if (p.recompute != Recompute::kSelective) return;
  const RecomputeModules& r = p.recompute_modules;
  auto fail = [&](const std::string& what) {
    throw InputError(plan.file, p.recompute_modules_line ? p.recompute_modules_line : p.line,
                     "parallelism.recompute_modules", what);
  };
  if (r.mla_up_proj && !t.latent)
    fail("mla_up_proj recomputes latent attention's up projections: the model has none");
  if (r.moe_act && !t.moe) fail("moe_act recomputes the experts' activation: the model has none");
  if (r.shared_experts && !(t.moe && t.moe->shared_experts > 0))
    fail("shared_experts: the model has no shared experts");
  bool beyond_attention = r.layernorm || r.mla_up_proj || r.moe_act || r.mlp || r.shared_experts;
  if (beyond_attention && !compute_from_device(plan))
    fail(
        "modules other than core_attn are charged from the device's compute model: give the "
        "device's figures (a preset) and no efficiency");
}

// Expert parallelism: runs of `expert` data-parallel ranks share out each MoE layer's experts.
void check_experts(const Plan& plan, const Parallelism& p, const TransformerShape& t) {
  if (p.expert == 1) return check_expert_alltoall(plan, p);
  auto fail = [&](const std::string& what) {
    throw InputError(plan.file, p.expert_line ? p.expert_line : p.line, "parallelism.expert", what);
  };
  if (!t.moe) fail("expert parallelism needs a mixture of experts (workload.transformer.moe)");
  if (t.moe->experts % p.expert != 0)
    fail(str(p.expert) + " does not divide the " + str(t.moe->experts) + " experts");
  long long data = plan.training.workers / (static_cast<long long>(p.tensor) * p.pipeline);
  if (data % p.expert != 0)
    fail(str(p.expert) + " does not divide the data-parallel degree " + str(data) +
         " (workers / (tensor x pipeline)), which expert parallelism splits");
  if (p.tensor > 1 && !p.sequence_parallel)
    fail(
        "over a tensor group, expert parallelism is modelled with sequence parallelism (as "
        "Megatron-Core requires): write sequence_parallel: true");
  if (plan.strategy.kind == StrategyKind::kPs)
    fail(
        "the experts' gradients are exchanged by a collective over their own data group: use a "
        "collective strategy, not a parameter server");
  if (p.zero >= 2)
    fail(
        "ZeRO-2 and ZeRO-3 with expert parallelism (the experts' shards over their own data "
        "group) are not modelled yet: use zero: 0 or 1");
  check_expert_alltoall(plan, p);
}

// Context parallelism as Megatron-Core runs it: the sequence cut into 2 x context chunks, each
// rank taking one from each end so that causal attention's work is even (its load balancing).
void check_context(const Plan& plan, const Parallelism& p, const TransformerShape& t) {
  if (p.context == 1) return;
  auto fail = [&](const std::string& field, const std::string& what) {
    throw InputError(plan.file, p.context_line ? p.context_line : p.line, "parallelism." + field,
                     what);
  };
  if (t.sequence % (2 * p.context) != 0)
    fail("context", "the sequence of " + str(t.sequence) + " tokens does not split into 2 x " +
                        str(p.context) +
                        " chunks (Megatron-Core balances causal attention with two a rank)");
  if (p.expert > 1) fail("context", "context and expert parallelism together are not modelled yet");
  if (plan.strategy.kind == StrategyKind::kPs)
    fail("context",
         "the gradients are exchanged over context x data ranks by a collective: use a "
         "collective strategy, not a parameter server");
  if (!plan.workload.efficiency_by_size.empty())
    fail("context",
         "is modelled with compute from the device's figures or one efficiency, not "
         "workload.efficiency_by_size");
}

void check_batch(const Plan& plan, const Parallelism& p) {
  const Training& tr = plan.training;
  long long replica = static_cast<long long>(p.tensor) * p.pipeline * p.context;
  if (tr.workers % replica != 0)
    throw InputError(plan.file, tr.workers_line, "training.workers",
                     str(tr.workers) + " workers do not divide into replicas of tensor " +
                         str(p.tensor) + " x pipeline " + str(p.pipeline) +
                         (p.context > 1 ? " x context " + str(p.context) : "") + " devices");
  long long data = tr.workers / replica;
  long long global = tr.global_batch > 0 ? tr.global_batch : 1LL * tr.batch_per_worker * data;
  if (global % (data * p.microbatch) != 0)
    throw InputError(plan.file, p.microbatch_line ? p.microbatch_line : p.line,
                     "parallelism.microbatch",
                     str(global) + " sequences per iteration do not divide into " + str(data) +
                         " data-parallel replicas x micro-batches of " + str(p.microbatch));
  long long microbatches = global / (data * p.microbatch);
  // The closed form walks every (micro-batch, chunk) of every stage: bound the walk.
  int chunks = schedule_chunks(p.schedule, p.virtual_stages);
  if (static_cast<double>(microbatches) * chunks * p.pipeline > kMaxPipelineOps)
    throw InputError(
        plan.file, p.microbatch_line ? p.microbatch_line : p.line, "parallelism.microbatch",
        str(microbatches) + " micro-batches x " + str(chunks) + " chunks x " + str(p.pipeline) +
            " stages is more pipeline work than scaleout takes (" + str(kMaxPipelineOps) + ")");
  std::string why = check_schedule(p.schedule, p.pipeline, static_cast<int>(microbatches), chunks);
  if (!why.empty())
    throw InputError(plan.file, p.schedule_line ? p.schedule_line : p.line, "parallelism.schedule",
                     why);
}

// The split the plan's framework runs, when it names one; the refusal names the framework's limit.
void check_framework(const Plan& plan, const Parallelism& p) {
  if (!p.framework) return;
  FrameworkRefusal no =
      framework_refusal(*p.framework, p, plan.workload.transformer->moe.has_value());
  if (!no) return;
  int line = no.field == "zero"       ? p.zero_line
             : no.field == "schedule" ? p.schedule_line
             : no.field == "pipeline" ? p.pipeline_line
             : no.field == "context"  ? p.context_line
                                      : 0;  // sequence_parallel keeps no line: the mapping's
  throw InputError(plan.file, line ? line : (p.framework_line ? p.framework_line : p.line),
                   "parallelism." + no.field, no.reason);
}

void check_strategy(const Plan& plan, const Parallelism& p) {
  if (uses_ps_training(plan))
    throw InputError(plan.file, plan.strategy.line, "strategy",
                     "model parallelism exchanges the data group's gradient synchronously: an "
                     "asynchronous, softsync or backup-worker parameter server cannot serve it");
  if (p.zero >= 2 && plan.strategy.kind == StrategyKind::kPs)
    throw InputError(plan.file, p.zero_line, "parallelism.zero",
                     "ZeRO-2 and ZeRO-3 reduce-scatter each micro-batch's gradients and ZeRO-3 "
                     "gathers parameters with collectives; a parameter server holds them whole "
                     "(use zero: 0-1 or a collective strategy)");
}

// What the model-parallel engines do not model yet is refused, not ignored.
void check_modelled(const Plan& plan, const Parallelism& p) {
  const Stragglers& st = plan.stragglers;
  if (!st.slow_workers.empty() || st.random != SlowdownKind::kNone)
    throw InputError(plan.file, st.slow_workers_line ? st.slow_workers_line : p.line, "stragglers",
                     "are not modelled for model-parallel plans yet: remove them or the "
                     "parallelism");
  if (!plan.resilience.failures.empty())
    throw InputError(plan.file, plan.resilience.failures[0].line, "failures",
                     "a list of failures is not modelled for model-parallel plans yet: give "
                     "failure rates (reliability:) instead");
  if (plan.resilience.checkpoint_every > 0 && !plan.reliability)
    throw InputError(plan.file, plan.resilience.checkpoint_line, "checkpoint",
                     "a model-parallel plan's checkpoints are costed with its failure rates: add "
                     "reliability: (see docs/reliability.md)");
  const Heterogeneity& h = plan.cluster.heterogeneity;
  if (!h.speed_factors.empty() || !h.link_bandwidth.empty())
    throw InputError(plan.cluster.file.empty() ? plan.file : plan.cluster.file, h.line,
                     "speed_factors",
                     "heterogeneous devices and links are not modelled for model-parallel plans "
                     "yet");
}

// Megatron-Core's --overlap-grad-reduce: for the gradient it exchanges once per iteration.
void check_overlap(const Plan& plan, const Parallelism& p) {
  auto fail = [&](const std::string& field, const std::string& what) {
    throw InputError(plan.file, p.overlap_line ? p.overlap_line : p.line, "parallelism." + field,
                     what);
  };
  if (p.bucket_size > 0 && !p.overlap_grad_reduce)
    fail("bucket_size",
         "sizes the buckets of overlap_grad_reduce: write overlap_grad_reduce: true (without it "
         "Megatron-Core exchanges the gradient as one bucket)");
  // Megatron-Core asserts both (megatron/training/arguments.py).
  if (p.overlap_param_gather && p.zero != 1)
    fail("overlap_param_gather",
         "gathers the distributed optimizer's updated parameters: write zero: 1 (Megatron-Core's "
         "--use-distributed-optimizer)");
  if (p.overlap_param_gather && !p.overlap_grad_reduce)
    fail("overlap_param_gather",
         "Megatron-Core runs it with --overlap-grad-reduce only: write overlap_grad_reduce: true");
  if (!p.overlap_grad_reduce) return;
  if (p.framework && *p.framework != Framework::kMegatron && *p.framework != Framework::kAny)
    fail("overlap_grad_reduce",
         std::string("is Megatron-Core's option; ") + framework_title(*p.framework) +
             " is not modelled with it (parallelism.framework: megatron or any)");
  if (p.zero >= 2)
    fail("overlap_grad_reduce",
         "ZeRO-2 and ZeRO-3 already reduce-scatter each layer's gradients beside the next "
         "layer's backward: use zero: 0 or 1 (1: Megatron-Core's distributed optimizer)");
  if (plan.strategy.kind == StrategyKind::kPs)
    fail("overlap_grad_reduce",
         "overlaps the data group's collective with backward: use a collective strategy, not a "
         "parameter server");
}

// Megatron-Core's --tp-comm-overlap (TransformerEngine's userbuffers), with what it asserts.
void check_tp_overlap(const Plan& plan, const Parallelism& p) {
  if (!p.tp_comm_overlap) return;
  auto fail = [&](const std::string& what) {
    throw InputError(plan.file, p.tp_overlap_line ? p.tp_overlap_line : p.line,
                     "parallelism.tp_comm_overlap", what);
  };
  if (p.tensor < 2) fail("overlaps the tensor group's collectives: give tensor 2 or more");
  if (!p.sequence_parallel)
    fail(
        "Megatron-Core overlaps the tensor group's collectives with sequence parallelism only: "
        "write sequence_parallel: true");
  if (p.framework && *p.framework != Framework::kMegatron && *p.framework != Framework::kAny)
    fail(std::string("is Megatron-Core's option; ") + framework_title(*p.framework) +
         " is not modelled with it (parallelism.framework: megatron or any)");
  if (p.zero >= 2)
    fail(
        "is modelled with zero: 0 or 1 (Megatron-Core's); ZeRO-2 and 3 walk their layers with "
        "their own collectives");
}

// ZB-H1, DualPipeV and DualPipe are walked with each op's compute whole: the options that walk an
// op's layers one at a time (their collectives beside the compute) are not split into its two
// backward passes yet.
void check_split_backward(const Plan& plan, const Parallelism& p) {
  if (!splits_backward(p.schedule)) return;
  auto refuse = [&](bool when, const std::string& option) {
    if (!when) return;
    throw InputError(plan.file, p.schedule_line ? p.schedule_line : p.line, "parallelism.schedule",
                     std::string(schedule_name(p.schedule)) + " is modelled without " + option +
                         " (its backward split into the inputs' and the weights' gradients is not "
                         "walked layer by layer yet): use schedule: 1f1b with it");
  };
  refuse(p.context > 1, "context parallelism");
  refuse(p.zero >= 2, "ZeRO-2 and ZeRO-3");
  refuse(p.overlap_grad_reduce, "overlap_grad_reduce");
  refuse(p.tp_comm_overlap, "tp_comm_overlap");
}

}  // namespace

void validate_model_parallel(const Plan& plan, bool split_searched) {
  if (!plan.parallelism) return;
  const Parallelism& p = *plan.parallelism;
  if (!plan.workload.transformer)
    throw InputError(plan.file, p.line, "parallelism",
                     "needs a transformer workload (`transformer:` with layers, hidden, heads, "
                     "sequence and vocabulary) to split");
  const TransformerShape& t = *plan.workload.transformer;
  // A search replaces the written split: its degrees need fit neither the model nor the batch.
  if (!split_searched) {
    check_tensor(plan, p, t);
    check_stages(plan, p, t);
    check_batch(plan, p);
    check_experts(plan, p, t);
    check_recompute_modules(plan, p, t);
    check_framework(plan, p);
  }
  check_context(plan, p, t);  // a search keeps the written context degree
  check_strategy(plan, p);
  check_overlap(plan, p);
  check_tp_overlap(plan, p);
  check_split_backward(plan, p);
  check_modelled(plan, p);
}

}  // namespace scaleout::core
