#include "core/formats/megatron_import.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/formats/moe_layer_pattern.hpp"
#include "core/plan/input_error.hpp"

namespace scaleout::core {

namespace {

constexpr const char* kSource = "megatron arguments";

// The flags read, and whether each takes a value.
const std::map<std::string, bool>& known_flags() {
  static const std::map<std::string, bool> flags = {
      {"--num-layers", true},
      {"--hidden-size", true},
      {"--num-attention-heads", true},
      {"--ffn-hidden-size", true},
      {"--kv-channels", true},
      {"--group-query-attention", false},
      {"--num-query-groups", true},
      {"--seq-length", true},
      {"--max-position-embeddings", true},
      {"--vocab-size", true},
      {"--swiglu", false},
      {"--position-embedding-type", true},
      {"--untie-embeddings-and-output-weights", false},
      {"--use-flash-attn", false},
      {"--multi-latent-attention", false},
      {"--q-lora-rank", true},
      {"--kv-lora-rank", true},
      {"--qk-head-dim", true},
      {"--qk-pos-emb-head-dim", true},
      {"--v-head-dim", true},
      {"--num-experts", true},
      {"--moe-router-topk", true},
      {"--moe-ffn-hidden-size", true},
      {"--moe-shared-expert-intermediate-size", true},
      {"--moe-layer-freq", true},
      {"--moe-expert-capacity-factor", true},
      {"--moe-pad-expert-input-to-capacity", false},
      {"--moe-grouped-gemm", false},
      {"--expert-model-parallel-size", true},
      {"--context-parallel-size", true},
      {"--cp-comm-type", true},
      {"--tensor-model-parallel-size", true},
      {"--pipeline-model-parallel-size", true},
      {"--decoder-first-pipeline-num-layers", true},
      {"--decoder-last-pipeline-num-layers", true},
      {"--account-for-embedding-in-pipeline-split", false},
      {"--account-for-loss-in-pipeline-split", false},
      {"--num-layers-per-virtual-pipeline-stage", true},
      {"--sequence-parallel", false},
      {"--recompute-granularity", true},
      {"--recompute-method", true},
      {"--recompute-num-layers", true},
      {"--recompute-modules", true},
      {"--moe-router-num-groups", true},
      {"--moe-router-group-topk", true},
      {"--use-distributed-optimizer", false},
      {"--overlap-grad-reduce", false},
      {"--overlap-param-gather", false},
      {"--tp-comm-overlap", false},
      {"--ddp-bucket-size", true},
      {"--micro-batch-size", true},
      {"--global-batch-size", true},
      {"--bf16", false},
      {"--fp16", false},
      {"--fp8-format", true},
      {"--grad-reduce-in-bf16", false},
      {"--accumulate-allreduce-grads-in-fp32", false},
  };
  return flags;
}

// The flags read that take a list of values (argparse's nargs): kept space-separated.
const std::set<std::string>& list_flags() {
  static const std::set<std::string> flags = {"--recompute-modules"};
  return flags;
}

// The arguments split into the flags read (flag -> value, "" for a switch) and the rest.
struct Arguments {
  std::map<std::string, std::string> values;
  std::vector<std::string> left_out;
  std::vector<std::string> derivation;

  bool has(const std::string& flag) const { return values.count(flag) > 0; }
};

Arguments split_arguments(const std::vector<std::string>& args) {
  Arguments out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    bool inline_value = false;
    if (std::size_t eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1), flag = flag.substr(0, eq), inline_value = true;
    }
    auto known = known_flags().find(flag);
    if (known == known_flags().end()) {  // with the values that follow it, for the list
      std::string shown = args[i];
      while (!inline_value && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
        shown += " " + args[++i];
      out.left_out.push_back(shown);
      continue;
    }
    if (known->second && !inline_value) {
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
        throw InputError(kSource, 0, flag, "expects a value");
      value = args[++i];
      while (list_flags().count(flag) && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
        value += " " + args[++i];
    }
    out.values[flag] = value;
  }
  return out;
}

// The flag's whole number in [at_least, 2^30]; `fallback` (said so) when absent and >= 0 given.
int whole(Arguments& a, const std::string& flag, const std::string& field, int fallback = -1,
          int at_least = 1) {
  if (!a.has(flag)) {
    if (fallback < 0) throw InputError(kSource, 0, flag, "missing: the model's " + field);
    a.derivation.push_back(field + " " + std::to_string(fallback) + ": Megatron-LM's default (no " +
                           flag + ")");
    return fallback;
  }
  const std::string& text = a.values[flag];
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < at_least || v > (1L << 30))
    throw InputError(kSource, 0, flag,
                     "'" + text + "' is not a whole number from " + std::to_string(at_least));
  a.derivation.push_back(field + " " + text + ": " + flag);
  return static_cast<int>(v);
}

// Whether a switch is given, said either way: "mlp swiglu: --swiglu" or "mlp gelu: Megatron-LM's
// default (no --swiglu)".
bool switched(Arguments& a, const std::string& flag, const std::string& field, const char* on,
              const char* off) {
  bool given = a.has(flag);
  a.derivation.push_back(field + " " + (given ? on : off) + ": " +
                         (given ? flag : "Megatron-LM's default (no " + flag + ")"));
  return given;
}

std::string choice(const Arguments& a, const std::string& flag,
                   const std::set<std::string>& allowed, const std::string& fallback) {
  auto it = a.values.find(flag);
  if (it == a.values.end()) return fallback;
  if (!allowed.count(it->second)) {
    std::string list;
    for (const std::string& v : allowed) list += (list.empty() ? "" : ", ") + v;
    throw InputError(kSource, 0, flag, "'" + it->second + "' is not read (" + list + " are)");
  }
  return it->second;
}

// A flag that Megatron-LM reads only with `needs`: refused without it.
void only_with(const Arguments& a, const std::string& flag, const std::string& needs) {
  if (a.has(flag))
    throw InputError(kSource, 0, flag,
                     "sizes the buckets of " + needs +
                         ", which is not given (give both, or "
                         "neither: one bucket then holds the whole gradient)");
}

struct Model {
  int layers = 0, hidden = 0, heads = 0;
  std::string yaml;  // the transformer's flow mapping
};

// Megatron-LM's default FFN: 4 h, or for SwiGLU 2/3 of it rounded down to a multiple of 64
// (megatron/training/arguments.py).
int default_ffn(int hidden, bool swiglu) {
  return swiglu ? static_cast<int>(4.0 * hidden * 2 / 3 / 64) * 64 : 4 * hidden;
}

// --moe-layer-freq: a whole number, or a list of 0 and 1 read as every and first_dense.
std::string moe_frequency_yaml(Arguments& a, int layers) {
  const std::string& text = a.values["--moe-layer-freq"];
  std::optional<MoeLayerPattern> pattern;
  try {
    pattern = parse_moe_layer_list(text, layers);
  } catch (const std::invalid_argument& e) {
    throw InputError(kSource, 0, "--moe-layer-freq", "'" + text + "' " + e.what());
  }
  if (!pattern) return ", every: " + std::to_string(whole(a, "--moe-layer-freq", "moe.every"));
  a.derivation.push_back("moe.every " + std::to_string(pattern->every) + ", moe.first_dense " +
                         std::to_string(pattern->first_dense) + ": --moe-layer-freq " + text);
  std::string out = ", every: " + std::to_string(pattern->every);
  if (pattern->first_dense > 0) out += ", first_dense: " + std::to_string(pattern->first_dense);
  return out;
}

// --multi-latent-attention and its widths (Megatron-LM's defaults where absent).
std::string latent_yaml(Arguments& a) {
  if (!a.has("--multi-latent-attention")) {
    for (const char* flag : {"--q-lora-rank", "--kv-lora-rank", "--qk-head-dim",
                             "--qk-pos-emb-head-dim", "--v-head-dim"})
      if (a.has(flag))
        throw InputError(kSource, 0, flag,
                         "sizes latent attention, which is not given (--multi-latent-attention)");
    return "";
  }
  if (a.has("--group-query-attention"))
    throw InputError(kSource, 0, "--group-query-attention",
                     "latent attention gives every head its own key and value");
  a.derivation.push_back("latent_attention: --multi-latent-attention");
  std::ostringstream m;
  m << ", latent_attention: { ";
  if (a.has("--q-lora-rank"))
    m << "q_lora_rank: " << whole(a, "--q-lora-rank", "latent_attention.q_lora_rank") << ", ";
  else
    a.derivation.push_back("latent_attention without a query latent: no --q-lora-rank");
  m << "kv_lora_rank: " << whole(a, "--kv-lora-rank", "latent_attention.kv_lora_rank", 32)
    << ", qk_rope_head_dim: "
    << whole(a, "--qk-pos-emb-head-dim", "latent_attention.qk_rope_head_dim", 64)
    << ", qk_nope_head_dim: " << whole(a, "--qk-head-dim", "latent_attention.qk_nope_head_dim", 128)
    << ", v_head_dim: " << whole(a, "--v-head-dim", "latent_attention.v_head_dim", 128) << " }";
  return m.str();
}

std::string moe_yaml(Arguments& a, int ffn, int layers) {
  if (!a.has("--num-experts")) return "";
  std::ostringstream m;
  m << ", moe: { experts: " << whole(a, "--num-experts", "moe.experts", -1, 2)
    << ", top_k: " << whole(a, "--moe-router-topk", "moe.top_k", 2)
    << ", expert_ffn_hidden: " << whole(a, "--moe-ffn-hidden-size", "moe.expert_ffn_hidden", ffn);
  if (a.has("--moe-shared-expert-intermediate-size"))
    m << ", shared_experts: 1, shared_ffn_hidden: "
      << whole(a, "--moe-shared-expert-intermediate-size", "moe.shared_ffn_hidden");
  if (a.has("--moe-layer-freq")) m << moe_frequency_yaml(a, layers);
  if (a.has("--moe-router-num-groups"))
    m << ", groups: " << whole(a, "--moe-router-num-groups", "moe.groups")
      << ", group_top_k: " << whole(a, "--moe-router-group-topk", "moe.group_top_k");
  if (a.has("--moe-expert-capacity-factor")) {
    const std::string& factor = a.values["--moe-expert-capacity-factor"];
    if (std::atof(factor.c_str()) < 1)
      throw InputError(kSource, 0, "--moe-expert-capacity-factor",
                       "'" + factor + "': a factor of 1 or more is modelled");
    if (a.has("--moe-pad-expert-input-to-capacity")) {
      m << ", capacity_factor: " << factor;
      a.derivation.push_back(
          "moe.capacity_factor " + factor +
          ": --moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity");
    } else {
      a.derivation.push_back(
          "moe.capacity_factor left out: without "
          "--moe-pad-expert-input-to-capacity an expert computes at most its "
          "own tokens (modelled as dropless)");
    }
  }
  m << " }";
  return m.str();
}

Model model_yaml(Arguments& a, int vocabulary) {
  Model out;
  out.layers = whole(a, "--num-layers", "layers");
  out.hidden = whole(a, "--hidden-size", "hidden");
  out.heads = whole(a, "--num-attention-heads", "heads");
  bool swiglu = switched(a, "--swiglu", "mlp", "swiglu", "gelu");
  int ffn = whole(a, "--ffn-hidden-size", "ffn_hidden", default_ffn(out.hidden, swiglu));
  int kv =
      a.has("--group-query-attention") ? whole(a, "--num-query-groups", "kv_heads", 1) : out.heads;
  // --kv-channels: one head's width, hidden / heads unless given (Gemma's are wider).
  std::string head_dim;
  std::string latent = latent_yaml(a);
  if (!latent.empty() && a.has("--kv-channels"))
    throw InputError(kSource, 0, "--kv-channels",
                     "latent attention's heads are given by --qk-head-dim, "
                     "--qk-pos-emb-head-dim and --v-head-dim");
  if (a.has("--kv-channels"))
    head_dim = ", head_dim: " + std::to_string(whole(a, "--kv-channels", "head_dim"));
  int sequence = whole(a, "--seq-length", "sequence");
  if (a.has("--vocab-size")) {
    vocabulary = whole(a, "--vocab-size", "vocabulary");
  } else if (vocabulary <= 0) {
    throw InputError(kSource, 0, "--vocab-size",
                     "missing: the tokenizer sets the vocabulary; give --vocab-size among the "
                     "arguments or scaleout's --vocabulary");
  } else {
    a.derivation.push_back("vocabulary " + std::to_string(vocabulary) + ": --vocabulary");
  }
  std::string positions =
      choice(a, "--position-embedding-type", {"learned_absolute", "rope"}, "learned_absolute");
  a.derivation.push_back(std::string("positions ") + (positions == "rope" ? "rotary" : "learned") +
                         ": --position-embedding-type " + positions +
                         (a.has("--position-embedding-type") ? "" : " (Megatron-LM's default)"));
  bool untied =
      switched(a, "--untie-embeddings-and-output-weights", "tied_embeddings", "false", "true");
  bool flash = switched(a, "--use-flash-attn", "attention", "flash", "standard");
  std::ostringstream t;
  t << "{ layers: " << out.layers << ", hidden: " << out.hidden << ", heads: " << out.heads
    << ", kv_heads: " << kv << head_dim << ", ffn_hidden: " << ffn << ", sequence: " << sequence
    << ", vocabulary: " << vocabulary << ", mlp: " << (swiglu ? "swiglu" : "gelu")
    << ", positions: " << (positions == "rope" ? "rotary" : "learned")
    << ", tied_embeddings: " << (untied ? "false" : "true")
    << ", attention: " << (flash ? "flash" : "standard") << moe_yaml(a, ffn, out.layers) << latent
    << " }";
  out.yaml = t.str();
  return out;
}

// --recompute-modules' names as the plan's list (the loader checks them).
std::string recompute_modules_yaml(Arguments& a) {
  std::istringstream names(a.values["--recompute-modules"]);
  std::string name, list;
  while (names >> name) list += (list.empty() ? "" : ", ") + name;
  a.derivation.push_back("recompute_modules [" + list + "]: --recompute-modules");
  return ", recompute_modules: [" + list + "]";
}

std::string recompute_of(Arguments& a) {
  std::string granularity = choice(a, "--recompute-granularity", {"full", "selective"}, "none");
  if (granularity == "selective" && a.has("--recompute-modules")) {
    a.values.erase("--recompute-method"), a.values.erase("--recompute-num-layers");
    a.derivation.push_back("recompute selective: --recompute-granularity selective");
    return granularity + recompute_modules_yaml(a);
  }
  if (a.has("--recompute-modules")) {
    a.values.erase("--recompute-modules");
    a.derivation.push_back("--recompute-modules left out: it applies to selective recomputation");
  }
  if (granularity != "full") {
    a.values.erase("--recompute-method"), a.values.erase("--recompute-num-layers");
    a.derivation.push_back("recompute " + granularity +
                           (granularity == "none"
                                ? ": Megatron-LM's default (no --recompute-granularity)"
                                : ": --recompute-granularity " + granularity));
    return granularity;
  }
  std::string method = choice(a, "--recompute-method", {"uniform", "block"}, "uniform");
  int layers =
      a.has("--recompute-num-layers") ? whole(a, "--recompute-num-layers", "recompute") : 1;
  if (method != "uniform" || layers != 1)
    a.derivation.push_back(
        "recompute full: --recompute-granularity full (planned as every layer's "
        "input kept and the rest recomputed; --recompute-method " +
        method + " with " + std::to_string(layers) + " layers a group recomputes otherwise)");
  else
    a.derivation.push_back(
        "recompute full: --recompute-granularity full --recompute-method "
        "uniform --recompute-num-layers 1");
  return "full";
}

// Megatron-Core's overlaps, as the parallelism mapping's keys (each after a comma).
std::string overlap_yaml(Arguments& a) {
  std::ostringstream p;
  if (switched(a, "--tp-comm-overlap", "tp_comm_overlap", "true", "false"))
    p << ", tp_comm_overlap: true";
  if (switched(a, "--overlap-grad-reduce", "overlap_grad_reduce", "true", "false")) {
    p << ", overlap_grad_reduce: true";
    if (a.has("--ddp-bucket-size"))
      p << ", bucket_size: " << whole(a, "--ddp-bucket-size", "bucket_size");
    if (switched(a, "--overlap-param-gather", "overlap_param_gather", "true", "false"))
      p << ", overlap_param_gather: true";
    return p.str();
  }
  only_with(a, "--ddp-bucket-size", "--overlap-grad-reduce");
  if (a.has("--overlap-param-gather"))
    throw InputError(kSource, 0, "--overlap-param-gather",
                     "needs --overlap-grad-reduce, which is not given (Megatron-Core asserts it)");
  return p.str();
}

struct Split {
  std::string yaml;  // the parallelism mapping
  int data = 1, microbatch = 1;
};

Split split_yaml(Arguments& a, const Model& m, int workers) {
  Split out;
  int tensor = whole(a, "--tensor-model-parallel-size", "tensor", 1);
  int pipeline = whole(a, "--pipeline-model-parallel-size", "pipeline", 1);
  int context = whole(a, "--context-parallel-size", "context", 1);
  if (m.heads % tensor != 0)
    throw InputError(kSource, 0, "--tensor-model-parallel-size",
                     std::to_string(tensor) + " does not divide the " + std::to_string(m.heads) +
                         " heads (--num-attention-heads)");
  bool uneven =
      a.has("--decoder-first-pipeline-num-layers") || a.has("--decoder-last-pipeline-num-layers");
  // The embedding and the loss counted as layers split with them (Megatron-LM's arguments check).
  int units = m.layers + a.has("--account-for-embedding-in-pipeline-split") +
              a.has("--account-for-loss-in-pipeline-split");
  if (!uneven && units % pipeline != 0)
    throw InputError(kSource, 0, "--pipeline-model-parallel-size",
                     std::to_string(pipeline) + " does not divide the " + std::to_string(units) +
                         " layers (--num-layers" +
                         (units > m.layers ? ", the embedding and the loss counted" : "") + ")");
  if (workers % (static_cast<long>(tensor) * pipeline * context) != 0)
    throw InputError(kSource, 0, "--workers",
                     std::to_string(workers) + " workers do not divide into tensor " +
                         std::to_string(tensor) + " x pipeline " + std::to_string(pipeline) +
                         " x context " + std::to_string(context));
  out.data = workers / (tensor * pipeline * context);
  int virtual_stages = 1;
  if (a.has("--num-layers-per-virtual-pipeline-stage")) {
    int per_chunk = whole(a, "--num-layers-per-virtual-pipeline-stage", "layers a chunk");
    if ((units / pipeline) % per_chunk != 0)
      throw InputError(kSource, 0, "--num-layers-per-virtual-pipeline-stage",
                       std::to_string(per_chunk) + " does not divide a stage's " +
                           std::to_string(units / pipeline) + " layers");
    virtual_stages = units / pipeline / per_chunk;
  }
  bool sequence_parallel = switched(a, "--sequence-parallel", "sequence_parallel", "true", "false");
  bool distributed = switched(a, "--use-distributed-optimizer", "zero", "1", "0");
  std::string recompute = recompute_of(a);
  std::ostringstream p;
  p << "{ framework: megatron, tensor: " << tensor << ", pipeline: " << pipeline;
  if (virtual_stages > 1) p << ", schedule: interleaved, virtual_stages: " << virtual_stages;
  out.microbatch = whole(a, "--micro-batch-size", "microbatch", 1);
  p << ", microbatch: " << out.microbatch
    << ", sequence_parallel: " << (sequence_parallel ? "true" : "false")
    << ", recompute: " << recompute << ", zero: " << (distributed ? 1 : 0);
  if (a.has("--expert-model-parallel-size"))
    p << ", expert: " << whole(a, "--expert-model-parallel-size", "expert");
  if (context > 1)  // Transformer Engine's ring attention (p2p) or Llama 3's all-gather
    p << ", context: " << context << ", context_exchange: "
      << (choice(a, "--cp-comm-type", {"p2p", "all_gather"}, "p2p") == "p2p" ? "ring"
                                                                             : "allgather");
  if (a.has("--decoder-first-pipeline-num-layers"))
    p << ", first_stage_layers: "
      << whole(a, "--decoder-first-pipeline-num-layers", "first_stage_layers");
  if (a.has("--decoder-last-pipeline-num-layers"))
    p << ", last_stage_layers: "
      << whole(a, "--decoder-last-pipeline-num-layers", "last_stage_layers");
  if (switched(a, "--account-for-embedding-in-pipeline-split",
               "account_for_embedding_in_pipeline_split", "true", "false"))
    p << ", account_for_embedding_in_pipeline_split: true";
  if (switched(a, "--account-for-loss-in-pipeline-split", "account_for_loss_in_pipeline_split",
               "true", "false"))
    p << ", account_for_loss_in_pipeline_split: true";
  p << overlap_yaml(a) << " }";
  out.yaml = p.str();
  return out;
}

// The products' precision and the data group's gradients: with bf16 Megatron-LM accumulates and
// reduces gradients in fp32 unless --grad-reduce-in-bf16; with fp16 in fp16 unless
// --accumulate-allreduce-grads-in-fp32 (megatron/training/arguments.py).
std::string precision_yaml(Arguments& a) {
  std::string precision = a.has("--fp8-format") ? "fp8"
                          : a.has("--bf16")     ? "bf16"
                          : a.has("--fp16")     ? "fp16"
                                                : "fp32";
  if (a.has("--fp8-format")) choice(a, "--fp8-format", {"hybrid", "e4m3"}, "hybrid");
  std::string gradients = "fp32";
  if (precision == "fp16" && !a.has("--accumulate-allreduce-grads-in-fp32")) gradients = "fp16";
  if ((precision == "bf16" || precision == "fp8") && a.has("--grad-reduce-in-bf16"))
    gradients = "bf16";
  a.derivation.push_back("precision " + precision + ": " +
                         (precision == "fp8"    ? "--fp8-format"
                          : precision == "fp32" ? "Megatron-LM's default (no --bf16 or --fp16)"
                                                : "--" + precision));
  bool told = a.has("--grad-reduce-in-bf16") || a.has("--accumulate-allreduce-grads-in-fp32");
  a.derivation.push_back("gradient_precision " + gradients + ": " +
                         (told ? std::string("as the gradient flag says")
                               : "Megatron-LM's for " + precision + " (no gradient flag)"));
  return "precision: " + precision + ", gradient_precision: " + gradients;
}

void comment_lines(std::ostringstream& out, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) out << "#   " << line << "\n";
}

}  // namespace

MegatronImport import_megatron(const std::vector<std::string>& args,
                               const MegatronImportOptions& options) {
  if (options.workers < 1) throw InputError(kSource, 0, "--workers", "give the world size (>= 1)");
  Arguments a = split_arguments(args);
  Model model = model_yaml(a, options.vocabulary);
  Split split = split_yaml(a, model, options.workers);
  int global = whole(a, "--global-batch-size", "global_batch", split.microbatch * split.data);
  std::string precision = precision_yaml(a);
  std::string name = options.name.empty() ? "megatron-" + std::to_string(model.layers) + "x" +
                                                std::to_string(model.hidden)
                                          : options.name;
  std::ostringstream out;
  out << "# From Megatron-LM's arguments (scaleout import megatron):\n";
  comment_lines(out, a.derivation);
  if (!a.left_out.empty()) {
    out << "# Not modelled, left out:\n";
    comment_lines(out, a.left_out);
  }
  out << "cluster: " << options.cluster << "\n"
      << "workload:\n  name: " << name << "\n  transformer: " << model.yaml << "\n"
      << "parallelism: " << split.yaml << "\n"
      << "strategy: { kind: ring }\n"
      << "training: { workers: " << options.workers << ", global_batch: " << global
      << ", steps: 1, " << precision << " }\n";
  return {out.str(), a.derivation, a.left_out};
}

}  // namespace scaleout::core
