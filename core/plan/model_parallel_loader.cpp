#include "core/plan/model_parallel_loader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/formats/hf_config.hpp"
#include "core/model/transformer.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/framework.hpp"
#include "core/plan/input_error.hpp"
#include "core/programs/strategies/ps_training.hpp"

namespace scaleout::core {

namespace {

constexpr int kMaxDimension = 1 << 24;

// A derived quantity the user also gave must agree with it within 1%.
void check_agrees(YamlMap& m, const std::string& key, Quantity q, double derived) {
  if (!m.has(key)) {
    m.child(key, false);
    return;
  }
  double given = m.get_quantity(key, q);
  if (std::abs(given - derived) > 0.01 * derived) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "%.4g, but the transformer's dimensions give %.4g (leave it "
                  "out to use the derived value)",
                  given, derived);
    m.fail(key, buf);
  }
}

}  // namespace

namespace {

// The workload's parameters and FLOPs from its transformer, checked against any it also gives.
void apply_transformer(YamlMap& workload, Workload& w, const TransformerShape& t) {
  w.transformer = t;
  w.parameters = transformer_parameters(t);
  w.flops_per_sample = model_flops_per_sequence(t);
  check_agrees(workload, "parameters", Quantity::kCount, w.parameters);
  check_agrees(workload, "flops_per_sample", Quantity::kFlop, w.flops_per_sample);
}

// `hf_config: config.json` or `hf_config: { file: config.json, sequence: 4096 }`: the file is
// relative to the workload's own (core/formats/hf_config.hpp says which architectures it reads).
TransformerShape read_hf_config_key(YamlMap& workload) {
  YAML::Node node = workload.child("hf_config");
  std::string file;
  int sequence = 0;
  if (node.IsScalar()) {
    file = workload.get_string("hf_config");
  } else {
    if (!node.IsMap())
      workload.fail("hf_config", "expected a path, or { file: config.json, sequence: N }");
    YamlMap m(node, workload.file(), workload.field("hf_config"));
    file = m.get_string("file");
    sequence = m.get_int_or("sequence", 1, 0, kMaxDimension);
    m.finish();
  }
  std::filesystem::path path(file);
  if (path.is_relative()) path = std::filesystem::path(workload.file()).parent_path() / path;
  TransformerShape t = read_hf_config(path.lexically_normal().string(), sequence).shape;
  t.line = line_of(node);
  return t;
}

// Group-limited routing: `groups` runs of experts, each token's top_k among its best group_top_k.
void read_routing_groups(YamlMap& m, MoeShape& moe) {
  if (!m.has("groups")) {
    if (m.has("group_top_k")) m.fail("group_top_k", "needs moe.groups");
    return;
  }
  moe.groups = m.get_int("groups", 1, moe.experts);
  if (moe.experts % moe.groups != 0)
    m.fail("groups", std::to_string(moe.groups) + " does not divide the " +
                         std::to_string(moe.experts) + " experts");
  moe.group_top_k = m.get_int("group_top_k", 1, moe.groups);
  int open = moe.group_top_k * (moe.experts / moe.groups);
  if (moe.top_k > open)
    m.fail("group_top_k", "leaves " + std::to_string(open) +
                              " experts open to a token, fewer than "
                              "its top_k " +
                              std::to_string(moe.top_k));
}

// `recompute_modules:` (Megatron-Core's --recompute-modules), with recompute: selective. "moe"
// (the whole MoE layer again, its all-to-alls included) is not modelled.
void read_recompute_modules(YamlMap& m, Parallelism& p) {
  YAML::Node list = m.child("recompute_modules", false);
  if (!list.IsDefined()) return;
  p.recompute_modules_line = line_of(list);
  if (p.recompute != Recompute::kSelective)
    m.fail("recompute_modules", "applies to recompute: selective");
  if (!list.IsSequence() || list.size() == 0)
    m.fail("recompute_modules", "expected a list such as [core_attn, layernorm]");
  RecomputeModules r;
  r.core_attn = false;
  std::map<std::string, bool*> names = {{"core_attn", &r.core_attn},
                                        {"layernorm", &r.layernorm},
                                        {"mla_up_proj", &r.mla_up_proj},
                                        {"moe_act", &r.moe_act},
                                        {"mlp", &r.mlp},
                                        {"shared_experts", &r.shared_experts}};
  for (const YAML::Node& item : list) {
    std::string name = item.IsScalar() ? item.Scalar() : "";
    if (name == "moe")
      m.fail("recompute_modules",
             "moe (the whole MoE layer again, its all-to-alls included) is not modelled: name "
             "moe_act and shared_experts, or recompute: full");
    auto it = names.find(name);
    if (it == names.end())
      m.fail("recompute_modules", "'" + name +
                                      "' is not one of core_attn, layernorm, mla_up_proj, moe_act, "
                                      "mlp, shared_experts");
    *it->second = true;
  }
  p.recompute_modules = r;
}

// `transformer.moe:` (core/plan/plan.hpp's MoeShape).
std::optional<MoeShape> read_moe(YamlMap& transformer, const TransformerShape& t) {
  if (!transformer.has("moe")) {
    transformer.child("moe", false);
    return std::nullopt;
  }
  YAML::Node node = transformer.child("moe");
  if (!node.IsMap()) transformer.fail("moe", "expected a mapping such as { experts: 8, top_k: 2 }");
  YamlMap m(node, transformer.file(), transformer.field("moe"));
  MoeShape moe;
  moe.line = line_of(node);
  moe.experts = m.get_int("experts", 2, kMaxDimension);
  moe.top_k = m.get_int_or("top_k", 1, 1, moe.experts);
  moe.expert_ffn_hidden = m.get_int_or("expert_ffn_hidden", 1, t.ffn_hidden, kMaxDimension);
  moe.shared_experts = m.get_int_or("shared_experts", 0, 0, kMaxDimension);
  moe.shared_ffn_hidden =
      m.get_int_or("shared_ffn_hidden", 1, std::max(1, moe.shared_experts * moe.expert_ffn_hidden),
                   kMaxDimension);
  if (moe.shared_experts == 0) {
    if (m.has("shared_ffn_hidden"))
      m.fail("shared_ffn_hidden", "applies only with shared_experts (1 or more)");
    moe.shared_ffn_hidden = 0;
  }
  moe.every = m.get_int_or("every", 1, 1, t.layers);
  moe.every_line = line_of(m.node()["every"]);
  moe.first_dense = m.get_int_or("first_dense", 0, 0, t.layers - 1);
  moe.first_dense_line = line_of(m.node()["first_dense"]);
  TransformerShape with_moe = t;
  with_moe.moe = moe;
  if (moe_layer_count(with_moe) == 0)
    m.fail("first_dense", "leaves no MoE layer among the " + std::to_string(t.layers) +
                              " (the MoE layers are those from first_dense on that every divides)");
  if (m.has("capacity_factor")) moe.capacity_factor = m.get_double("capacity_factor", 1.0, 1e3);
  moe.imbalance = m.get_double("imbalance", 1.0, 1e3, 1.0);
  read_routing_groups(m, moe);
  m.finish();
  return moe;
}

// `transformer.latent_attention:` (core/plan/plan.hpp's LatentAttention), Hugging Face's field
// names.
std::optional<LatentAttention> read_latent_attention(YamlMap& transformer,
                                                     const TransformerShape& t) {
  if (!transformer.has("latent_attention")) {
    transformer.child("latent_attention", false);
    return std::nullopt;
  }
  YAML::Node node = transformer.child("latent_attention");
  if (!node.IsMap())
    transformer.fail("latent_attention",
                     "expected a mapping such as { kv_lora_rank: 512, qk_rope_head_dim: 64, "
                     "qk_nope_head_dim: 128, v_head_dim: 128 }");
  if (transformer.has("kv_heads") && t.kv_heads != t.heads)
    transformer.fail("kv_heads", "latent attention gives every head its own key and value");
  if (transformer.has("head_dim"))
    transformer.fail("head_dim", "latent attention's heads are given by its own widths");
  YamlMap m(node, transformer.file(), transformer.field("latent_attention"));
  LatentAttention a;
  a.line = line_of(node);
  a.q_rank = m.get_int_or("q_lora_rank", 0, 0, kMaxDimension);
  a.kv_rank = m.get_int("kv_lora_rank", 1, kMaxDimension);
  a.rope_dim = m.get_int("qk_rope_head_dim", 1, kMaxDimension);
  a.nope_dim = m.get_int("qk_nope_head_dim", 1, kMaxDimension);
  a.value_dim = m.get_int("v_head_dim", 1, kMaxDimension);
  m.finish();
  return a;
}

}  // namespace

bool read_transformer(YamlMap& workload, Workload& w) {
  if (workload.has("hf_config")) {
    if (workload.has("transformer"))
      workload.fail("hf_config", "give the model as `transformer:` or `hf_config:`, not both");
    apply_transformer(workload, w, read_hf_config_key(workload));
    return true;
  }
  if (!workload.has("transformer")) {
    workload.child("transformer", false);
    workload.child("hf_config", false);
    return false;
  }
  YAML::Node node = workload.child("transformer");
  YamlMap m(node, workload.file(), workload.field("transformer"));
  TransformerShape t;
  t.line = line_of(node);
  t.layers = m.get_int("layers", 1, kMaxDimension);
  t.hidden = m.get_int("hidden", 1, kMaxDimension);
  t.heads = m.get_int("heads", 1, kMaxDimension);
  t.sequence = m.get_int("sequence", 1, kMaxDimension);
  t.vocabulary = m.get_int("vocabulary", 1, 1 << 30);
  t.ffn_hidden = m.get_int_or("ffn_hidden", 1, 4 * t.hidden, kMaxDimension);
  t.kv_heads = m.get_int_or("kv_heads", 1, t.heads, kMaxDimension);
  t.head_dim = m.get_int_or("head_dim", 1, 0, kMaxDimension);
  t.mlp = m.get_choice("mlp", {"gelu", "swiglu"}, "gelu") == "swiglu" ? MlpKind::kSwiglu
                                                                      : MlpKind::kGelu;
  std::string positions = m.get_choice("positions", {"learned", "rotary", "alibi"}, "learned");
  t.positions = positions == "rotary"  ? PositionKind::kRotary
                : positions == "alibi" ? PositionKind::kAlibi
                                       : PositionKind::kLearned;
  t.tied_embeddings = m.get_bool("tied_embeddings", true);
  t.attention = m.get_choice("attention", {"standard", "flash"}, "standard") == "flash"
                    ? AttentionKind::kFlash
                    : AttentionKind::kStandard;
  t.causal = m.get_bool("causal", true);
  t.moe = read_moe(m, t);
  t.latent = read_latent_attention(m, t);
  if (t.head_dim == 0 && !t.latent && t.hidden % t.heads != 0)
    m.fail("heads", std::to_string(t.heads) + " heads do not divide the hidden size " +
                        std::to_string(t.hidden));
  if (t.heads % t.kv_heads != 0)
    m.fail("kv_heads", std::to_string(t.kv_heads) + " key-value heads do not divide the " +
                           std::to_string(t.heads) + " heads");
  m.finish();
  workload.child("hf_config", false);
  apply_transformer(workload, w, t);
  return true;
}

std::optional<Parallelism> read_parallelism(YamlMap& plan) {
  if (!plan.has("parallelism")) {
    plan.child("parallelism", false);
    return std::nullopt;
  }
  YAML::Node node = plan.child("parallelism");
  if (!node.IsMap()) plan.fail("parallelism", "expected a mapping such as { tensor: 8 }");
  YamlMap m(node, plan.file(), "parallelism");
  Parallelism p;
  p.line = line_of(node);
  auto line = [&m](const char* key) { return line_of(m.node()[key]); };
  p.tensor = m.get_int_or("tensor", 1, 1, kMaxDimension);
  p.tensor_line = line("tensor");
  p.pipeline = m.get_int_or("pipeline", 1, 1, kMaxDimension);
  p.pipeline_line = line("pipeline");
  p.microbatch = m.get_int_or("microbatch", 1, 1, kMaxDimension);
  p.microbatch_line = line("microbatch");
  p.schedule = schedule_named(m.get_choice(
      "schedule", {"gpipe", "1f1b", "interleaved", "zero_bubble", "dualpipev", "dualpipe"},
      "1f1b"));
  p.schedule_line = line("schedule");
  p.virtual_stages = m.get_int_or("virtual_stages", 1, 1, kMaxDimension);
  p.virtual_line = line("virtual_stages");
  p.sequence_parallel = m.get_bool("sequence_parallel", false);
  std::string recompute = m.get_choice("recompute", {"none", "selective", "full"}, "none");
  p.recompute = recompute == "full"        ? Recompute::kFull
                : recompute == "selective" ? Recompute::kSelective
                                           : Recompute::kNone;
  read_recompute_modules(m, p);
  p.zero = m.get_int_or("zero", 0, 0, 3);
  p.zero_line = line("zero");
  p.expert = m.get_int_or("expert", 1, 1, kMaxDimension);
  p.expert_line = line("expert");
  std::string alltoall =
      m.get_choice("expert_alltoall", {"pairwise", "hierarchical", "deduplicated"}, "pairwise");
  p.expert_alltoall = alltoall == "hierarchical"   ? ExpertAllToAll::kHierarchical
                      : alltoall == "deduplicated" ? ExpertAllToAll::kDeduplicated
                                                   : ExpertAllToAll::kPairwise;
  p.expert_alltoall_line = line("expert_alltoall");
  p.expert_dispatch_fp8 =
      m.get_choice("expert_dispatch_precision", {"bf16", "fp8"}, "bf16") == "fp8";
  p.expert_dispatch_precision_line = line("expert_dispatch_precision");
  p.context = m.get_int_or("context", 1, 1, kMaxDimension);
  p.context_exchange =
      m.get_choice("context_exchange", {"ring", "allgather"}, "ring") == "allgather"
          ? ContextExchange::kAllGather
          : ContextExchange::kRing;
  p.context_line = std::max(line("context"), line("context_exchange"));
  p.first_stage_layers = m.get_int_or("first_stage_layers", 1, 0, kMaxDimension);
  p.last_stage_layers = m.get_int_or("last_stage_layers", 1, 0, kMaxDimension);
  p.stage_layers_line = std::max(line("first_stage_layers"), line("last_stage_layers"));
  p.embedding_in_split = m.get_bool("account_for_embedding_in_pipeline_split", false);
  p.loss_in_split = m.get_bool("account_for_loss_in_pipeline_split", false);
  p.split_accounting_line = std::max(line("account_for_embedding_in_pipeline_split"),
                                     line("account_for_loss_in_pipeline_split"));
  p.overlap_grad_reduce = m.get_bool("overlap_grad_reduce", false);
  p.bucket_size = m.get_double("bucket_size", 1, 1e15, 0);
  p.overlap_param_gather = m.get_bool("overlap_param_gather", false);
  p.overlap_line =
      std::max({line("overlap_grad_reduce"), line("bucket_size"), line("overlap_param_gather")});
  p.tp_comm_overlap = m.get_bool("tp_comm_overlap", false);
  p.tp_overlap_line = line("tp_comm_overlap");
  if (m.has("framework")) {
    std::string framework = m.get_choice("framework", framework_names());
    p.framework = framework_named(framework);
    p.framework_line = line("framework");
  }
  m.finish();
  return p;
}

namespace {

// Whether the written split divides the workers and, when given, the global batch.
bool written_split_fits(const Plan& plan) {
  const Parallelism& p = *plan.parallelism;
  long long replica = static_cast<long long>(p.tensor) * p.pipeline * p.context;
  if (plan.training.workers % replica != 0) return false;
  long long data = plan.training.workers / replica;
  return plan.training.global_batch <= 0 || plan.training.global_batch % (data * p.microbatch) == 0;
}

}  // namespace

void apply_global_batch(Plan& plan, bool split_searched) {
  Training& t = plan.training;
  if (split_searched && plan.parallelism && !written_split_fits(plan)) {
    if (t.global_batch <= 0)
      throw InputError(plan.file, t.workers_line, "training.workers",
                       std::to_string(t.workers) + " workers do not divide into replicas of " +
                           std::to_string(plan.parallelism->tensor * plan.parallelism->pipeline) +
                           " devices, so batch_per_worker sets no batch for the search: give "
                           "training.global_batch (sequences per iteration)");
    return;  // the search divides the global batch by each split's own data degree
  }
  if (t.global_batch <= 0) return;
  // A data-parallel plan's batch grows with its workers (batch_per_worker); a global batch that
  // stayed fixed while a sweep changed the workers would need every engine to follow it.
  if (!plan.parallelism)
    throw InputError(plan.file, t.global_batch_line, "training.global_batch",
                     "applies to model-parallel plans (with parallelism:); a data-parallel plan "
                     "gives batch_per_worker");
  Parallelism par = plan.parallelism ? *plan.parallelism : Parallelism{};
  long long replica = static_cast<long long>(par.tensor) * par.pipeline * par.context;
  if (t.workers % replica != 0)
    throw InputError(
        plan.file, t.workers_line, "training.workers",
        std::to_string(t.workers) + " workers do not divide into replicas of " +
            std::to_string(replica) + " devices (tensor " + std::to_string(par.tensor) +
            " x pipeline " + std::to_string(par.pipeline) +
            (par.context > 1 ? " x context " + std::to_string(par.context) : "") + ")");
  long long data = t.workers / replica;
  if (t.global_batch % (data * par.microbatch) != 0)
    throw InputError(plan.file, t.global_batch_line, "training.global_batch",
                     std::to_string(t.global_batch) + " sequences do not divide into " +
                         std::to_string(data) + " data-parallel replicas x micro-batches of " +
                         std::to_string(par.microbatch));
  t.batch_per_worker = static_cast<int>(t.global_batch / data);
}

}  // namespace scaleout::core
