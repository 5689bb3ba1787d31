#include "core/formats/hf_config.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/formats/json_file.hpp"
#include "core/model/transformer.hpp"
#include "core/plan/input_error.hpp"

namespace scaleout::core {

namespace {

const char* position_name(PositionKind kind) {
  return kind == PositionKind::kRotary  ? "rotary"
         : kind == PositionKind::kAlibi ? "alibi"
                                        : "learned";
}

using json = nlohmann::json;

struct Reader {
  const std::string& path;
  const json& config;
  HfModel& model;

  // The first of `keys` the config has, as a whole number in [1, at_most]; `fallback` (> 0) when
  // none is given, else refused.
  int count(const char* what, std::initializer_list<const char*> keys, int fallback = 0,
            long at_most = 1 << 30) {
    for (const char* key : keys) {
      if (!config.contains(key) || config[key].is_null()) continue;
      if (!config[key].is_number_integer() || config[key].get<long>() < 1 ||
          config[key].get<long>() > at_most)
        throw InputError(path, 0, key,
                         "expected a whole number from 1 to " + std::to_string(at_most));
      model.derivation.push_back(std::string(what) + " " + std::to_string(config[key].get<long>()) +
                                 ": " + key);
      return config[key].get<int>();
    }
    if (fallback > 0) {
      model.derivation.push_back(std::string(what) + " " + std::to_string(fallback) +
                                 ": the family's default (the config gives none)");
      return fallback;
    }
    throw InputError(path, 0, *keys.begin(), "missing: the model's " + std::string(what));
  }

  bool flag(const char* key, bool fallback) {
    if (!config.contains(key)) return fallback;
    if (!config[key].is_boolean()) throw InputError(path, 0, key, "expected true or false");
    return config[key].get<bool>();
  }
};

enum class Family { kLlama, kGemma, kGemma2, kMixtral, kQwenMoe, kDeepSeek, kGpt2, kNeox, kFalcon };

Family family_of(const std::string& path, const std::string& type) {
  if (type == "llama" || type == "mistral" || type == "qwen2") return Family::kLlama;
  if (type == "gemma") return Family::kGemma;
  if (type == "gemma2") return Family::kGemma2;
  if (type == "mixtral") return Family::kMixtral;
  if (type == "qwen2_moe") return Family::kQwenMoe;
  if (type == "deepseek_v2" || type == "deepseek_v3") return Family::kDeepSeek;
  if (type == "gpt2") return Family::kGpt2;
  if (type == "gpt_neox") return Family::kNeox;
  if (type == "falcon" || type == "RefinedWebModel" || type == "RefinedWeb") return Family::kFalcon;
  throw InputError(path, 0, "model_type",
                   "'" + type +
                       "' is not described: llama, mistral, gemma, gemma2, mixtral, qwen2, "
                       "qwen2_moe, deepseek_v2, deepseek_v3, gpt2, gpt_neox and falcon are");
}

// A head's width when it is not hidden / heads (Gemma's, some Qwen's): head_dim.
void read_head_width(Reader& r, TransformerShape& t) {
  if (!r.config.contains("head_dim") || r.config["head_dim"].is_null()) return;
  int width = r.count("head_dim", {"head_dim"});
  if (static_cast<long>(width) * t.heads != t.hidden) t.head_dim = width;
}

void read_llama(Reader& r, TransformerShape& t) {
  t.layers = r.count("layers", {"num_hidden_layers"});
  t.hidden = r.count("hidden", {"hidden_size"});
  t.heads = r.count("heads", {"num_attention_heads"});
  t.kv_heads = r.count("kv_heads", {"num_key_value_heads"}, t.heads);
  t.ffn_hidden = r.count("ffn_hidden", {"intermediate_size"});
  t.vocabulary = r.count("vocabulary", {"vocab_size"});
  t.sequence = r.count("sequence", {"max_position_embeddings"});
  t.mlp = MlpKind::kSwiglu;
  t.positions = PositionKind::kRotary;
  t.tied_embeddings = r.flag("tie_word_embeddings", false);
}

// Gemma: Llama's layers with wider heads (head_dim), a GeGLU MLP (three matrices, as SwiGLU's),
// the output layer tied to the embedding.
void read_gemma(Reader& r, TransformerShape& t) {
  read_llama(r, t);
  t.tied_embeddings = r.flag("tie_word_embeddings", true);
  r.model.derivation.push_back(
      "mlp swiglu: Gemma's GeGLU has the same three matrices (gate, up, down)");
}

// Gemma 2 (Gemma Team 2024): Gemma's layers with four RMSNorms a layer (4 x hidden parameters:
// what scaleout counts for two two-vector norms), soft-capped attention scores and logits (a tanh
// over each, element-wise: not charged), and every other layer attending over the last
// sliding_window tokens only, which scaleout does not model: sequences up to it are exact.
void read_gemma2(Reader& r, TransformerShape& t) {
  read_gemma(r, t);
  r.model.local_window = r.count("sliding_window", {"sliding_window"}, 4096);
  r.model.derivation.push_back(
      "Gemma 2: its four RMSNorms a layer count as two two-vector norms (4 x hidden either way); "
      "the soft-capping of scores and logits is element-wise, not charged");
}

// Mixtral: Llama's layers, each MLP a mixture of num_local_experts experts of intermediate_size.
void read_mixtral(Reader& r, TransformerShape& t) {
  read_llama(r, t);
  MoeShape m;
  m.experts = r.count("moe.experts", {"num_local_experts"});
  m.top_k = r.count("moe.top_k", {"num_experts_per_tok"}, 2, m.experts);
  m.expert_ffn_hidden = t.ffn_hidden;
  r.model.derivation.push_back("moe.expert_ffn_hidden " + std::to_string(t.ffn_hidden) +
                               ": intermediate_size (every layer's MLP is a mixture)");
  t.moe = m;
}

// Qwen2-MoE: num_experts routed experts of moe_intermediate_size, one shared expert of
// shared_expert_intermediate_size. Its shared expert's sigmoid gate (hidden x 1 a layer) is not
// counted: 49,152 parameters of Qwen1.5-MoE-A2.7B's 14.3B.
void read_qwen_moe(Reader& r, TransformerShape& t) {
  if (r.config.contains("decoder_sparse_step") && r.config["decoder_sparse_step"] != json(1))
    throw InputError(r.path, 0, "decoder_sparse_step",
                     "MoE layers every n counted from the n-th are not described (moe.every "
                     "counts from the first layer): only 1 is read");
  if (r.config.contains("mlp_only_layers") && !r.config["mlp_only_layers"].empty())
    throw InputError(r.path, 0, "mlp_only_layers",
                     "dense layers at chosen places are not described: only [] is read");
  read_llama(r, t);
  MoeShape m;
  m.experts = r.count("moe.experts", {"num_experts"});
  m.top_k = r.count("moe.top_k", {"num_experts_per_tok"}, 0, m.experts);
  m.expert_ffn_hidden = r.count("moe.expert_ffn_hidden", {"moe_intermediate_size"});
  if (r.config.contains("shared_expert_intermediate_size")) {
    m.shared_experts = 1;
    m.shared_ffn_hidden = r.count("moe.shared_ffn_hidden", {"shared_expert_intermediate_size"});
  }
  t.moe = m;
}

// A whole number that may be 0 (first_k_dense_replace), `fallback` when the config gives none.
int read_count_or_zero(Reader& r, const char* what, const char* key, int fallback, int at_most) {
  if (!r.config.contains(key) || r.config[key].is_null()) return fallback;
  const json& value = r.config[key];
  if (!value.is_number_integer() || value.get<long>() < 0 || value.get<long>() > at_most)
    throw InputError(r.path, 0, key,
                     "expected a whole number from 0 to " + std::to_string(at_most));
  r.model.derivation.push_back(std::string(what) + " " + std::to_string(value.get<int>()) + ": " +
                               key);
  return value.get<int>();
}

// The length a model was pre-trained at when rope_scaling extends it afterwards (YaRN):
// rope_scaling.original_max_position_embeddings, in place of max_position_embeddings.
void read_pretraining_length(Reader& r, TransformerShape& t) {
  if (!r.config.contains("rope_scaling") || !r.config["rope_scaling"].is_object()) return;
  const json& scaling = r.config["rope_scaling"];
  if (!scaling.contains("original_max_position_embeddings")) return;
  const json& value = scaling["original_max_position_embeddings"];
  if (!value.is_number_integer() || value.get<long>() < 1 || value.get<long>() > (1 << 30))
    throw InputError(r.path, 0, "rope_scaling.original_max_position_embeddings",
                     "expected a whole number from 1 to " + std::to_string(1 << 30));
  t.sequence = value.get<int>();
  for (std::string& line : r.model.derivation)
    if (line.rfind("sequence ", 0) == 0)
      line = "sequence " + std::to_string(t.sequence) +
             ": rope_scaling.original_max_position_embeddings (the pre-training length; "
             "max_position_embeddings is the length after rope_scaling)";
}

// DeepSeek-V2 and V3's latent attention (q_lora_rank null: queries without a latent, V2-Lite).
LatentAttention read_latent(Reader& r) {
  LatentAttention a;
  a.q_rank = read_count_or_zero(r, "latent_attention.q_lora_rank", "q_lora_rank", 0, 1 << 20);
  a.kv_rank = r.count("latent_attention.kv_lora_rank", {"kv_lora_rank"});
  a.rope_dim = r.count("latent_attention.qk_rope_head_dim", {"qk_rope_head_dim"});
  a.nope_dim = r.count("latent_attention.qk_nope_head_dim", {"qk_nope_head_dim"});
  a.value_dim = r.count("latent_attention.v_head_dim", {"v_head_dim"});
  return a;
}

// DeepSeek-V2 and V3 (DeepSeek-AI 2024): Llama's norms and SwiGLU MLPs, latent attention, and a
// mixture of n_routed_experts experts with n_shared_experts shared ones, all of
// moe_intermediate_size, in the layers from first_k_dense_replace on whose index moe_layer_freq
// divides. Not counted: V3's multi-token prediction module (num_nextn_predict_layers, 14B that its
// 671B leave out too) and the router's per-expert bias (e_score_correction_bias, 256 a layer).
// Group-limited routing: each token's experts among its topk_group best of n_group groups (V2's
// devices, V3's nodes; a single group routes freely).
void read_deepseek(Reader& r, TransformerShape& t) {
  read_llama(r, t);
  read_pretraining_length(r, t);
  t.kv_heads = t.heads;  // each head has its own key and value from the latent
  t.latent = read_latent(r);
  MoeShape m;
  m.experts = r.count("moe.experts", {"n_routed_experts"});
  m.top_k = r.count("moe.top_k", {"num_experts_per_tok"}, 0, m.experts);
  m.expert_ffn_hidden = r.count("moe.expert_ffn_hidden", {"moe_intermediate_size"});
  m.shared_experts = read_count_or_zero(r, "moe.shared_experts", "n_shared_experts", 0, 1 << 10);
  m.shared_ffn_hidden = m.shared_experts * m.expert_ffn_hidden;
  m.every = r.count("moe.every", {"moe_layer_freq"}, 1, t.layers);
  m.first_dense =
      read_count_or_zero(r, "moe.first_dense", "first_k_dense_replace", 0, t.layers - 1);
  int groups = read_count_or_zero(r, "moe.groups", "n_group", 0, m.experts);
  if (groups > 1) {
    m.groups = groups;
    m.group_top_k = r.count("moe.group_top_k", {"topk_group"}, 0, groups);
  }
  if (r.config.contains("num_nextn_predict_layers"))
    r.model.derivation.push_back(
        "not counted: the multi-token prediction module (num_nextn_predict_layers), as the "
        "published totals leave it out");
  t.moe = m;
}

void read_gpt2(Reader& r, TransformerShape& t) {
  t.layers = r.count("layers", {"n_layer"});
  t.hidden = r.count("hidden", {"n_embd"});
  t.heads = r.count("heads", {"n_head"});
  t.kv_heads = t.heads;
  t.ffn_hidden = r.count("ffn_hidden", {"n_inner"}, 4 * t.hidden);
  t.vocabulary = r.count("vocabulary", {"vocab_size"});
  t.sequence = r.count("sequence", {"n_positions", "n_ctx"});
  t.tied_embeddings = r.flag("tie_word_embeddings", true);
}

void read_neox(Reader& r, TransformerShape& t) {
  t.layers = r.count("layers", {"num_hidden_layers"});
  t.hidden = r.count("hidden", {"hidden_size"});
  t.heads = r.count("heads", {"num_attention_heads"});
  t.kv_heads = t.heads;
  t.ffn_hidden = r.count("ffn_hidden", {"intermediate_size"}, 4 * t.hidden);
  t.vocabulary = r.count("vocabulary", {"vocab_size"});
  t.sequence = r.count("sequence", {"max_position_embeddings"});
  t.positions = PositionKind::kRotary;
  t.tied_embeddings = r.flag("tie_word_embeddings", false);
}

// Falcon: one key-value head (multi-query) unless the new decoder architecture gives more.
void read_falcon(Reader& r, TransformerShape& t) {
  t.layers = r.count("layers", {"num_hidden_layers", "n_layer"});
  t.hidden = r.count("hidden", {"hidden_size"});
  t.heads = r.count("heads", {"num_attention_heads", "n_head"});
  bool multi_query = r.flag("multi_query", true) && !r.flag("new_decoder_architecture", false);
  t.kv_heads = multi_query ? 1 : r.count("kv_heads", {"num_kv_heads"}, t.heads);
  if (multi_query) r.model.derivation.push_back("kv_heads 1: multi_query");
  t.ffn_hidden = r.count("ffn_hidden", {"ffn_hidden_size"}, 4 * t.hidden);
  t.vocabulary = r.count("vocabulary", {"vocab_size"});
  t.sequence = r.count("sequence", {"max_position_embeddings"}, 2048);
  t.positions = PositionKind::kRotary;
  t.tied_embeddings = r.flag("tie_word_embeddings", true);
}

}  // namespace

HfModel read_hf_config(const std::string& path, int sequence) {
  json config = read_json_object(path);
  if (!config.contains("model_type") || !config["model_type"].is_string())
    throw InputError(path, 0, "model_type", "missing: not a Hugging Face model config");
  std::string type = config["model_type"].get<std::string>();
  HfModel model;
  Reader r{path, config, model};
  TransformerShape& t = model.shape;
  switch (family_of(path, type)) {
    case Family::kLlama:
      read_llama(r, t);
      break;
    case Family::kGemma:
      read_gemma(r, t);
      break;
    case Family::kGemma2:
      read_gemma2(r, t);
      break;
    case Family::kMixtral:
      read_mixtral(r, t);
      break;
    case Family::kQwenMoe:
      read_qwen_moe(r, t);
      break;
    case Family::kDeepSeek:
      read_deepseek(r, t);
      break;
    case Family::kGpt2:
      read_gpt2(r, t);
      break;
    case Family::kNeox:
      read_neox(r, t);
      break;
    case Family::kFalcon:
      read_falcon(r, t);
      break;
  }
  if (!t.latent) read_head_width(r, t);
  if ((t.head_dim == 0 && !t.latent && t.hidden % t.heads != 0) || t.heads % t.kv_heads != 0)
    throw InputError(path, 0, "num_attention_heads",
                     "the heads do not divide the hidden size, or the key-value heads the heads");
  if (sequence > 0) {
    for (std::string& line : model.derivation)
      if (line.rfind("sequence ", 0) == 0)
        line = "sequence " + std::to_string(sequence) + ": given (instead of " +
               std::to_string(t.sequence) + ", " + line.substr(line.find(": ") + 2) + ")";
    t.sequence = sequence;
  }
  if (model.local_window > 0 && t.sequence > model.local_window)
    throw InputError(
        path, 0, "sliding_window",
        "Gemma 2's every other layer attends over the last " + std::to_string(model.local_window) +
            " tokens only, which is not " + "modelled beyond them: give a sequence of " +
            std::to_string(model.local_window) + " or less (import hf --sequence, " +
            "or workload: { hf_config: { file, sequence } }), not " + std::to_string(t.sequence));
  model.derivation.push_back(std::string("mlp ") + (t.mlp == MlpKind::kSwiglu ? "swiglu" : "gelu") +
                             ", positions " + position_name(t.positions) + ", tied_embeddings " +
                             (t.tied_embeddings ? "true" : "false") + ": model_type " + type);
  model.name = type + "-" + std::to_string(t.layers) + "x" + std::to_string(t.hidden);
  return model;
}

std::string hf_workload_yaml(const HfModel& model, const std::string& source) {
  const TransformerShape& t = model.shape;
  std::ostringstream out;
  out << "# From " << source << " (scaleout import hf):\n";
  for (const std::string& line : model.derivation) out << "#   " << line << "\n";
  char params[128];
  if (t.moe)
    std::snprintf(params, sizeof params, "%.6gB parameters, %.6gB active a token,",
                  transformer_parameters(t) / 1e9, active_parameters(t) / 1e9);
  else
    std::snprintf(params, sizeof params, "%.6gB parameters", transformer_parameters(t) / 1e9);
  out << "# " << params << " as scaleout counts them (docs/plan-format.md).\n"
      << "name: " << model.name << "\n"
      << "transformer:\n"
      << "  layers: " << t.layers << "\n"
      << "  hidden: " << t.hidden << "\n"
      << "  heads: " << t.heads << "\n"
      << "  kv_heads: " << t.kv_heads << "\n";
  if (t.head_dim > 0) out << "  head_dim: " << t.head_dim << "\n";
  out << "  ffn_hidden: " << t.ffn_hidden << "\n"
      << "  sequence: " << t.sequence << "\n"
      << "  vocabulary: " << t.vocabulary << "\n"
      << "  mlp: " << (t.mlp == MlpKind::kSwiglu ? "swiglu" : "gelu") << "\n"
      << "  positions: " << position_name(t.positions) << "\n"
      << "  tied_embeddings: " << (t.tied_embeddings ? "true" : "false") << "\n";
  if (t.moe) {
    const MoeShape& m = *t.moe;
    out << "  moe: { experts: " << m.experts << ", top_k: " << m.top_k
        << ", expert_ffn_hidden: " << m.expert_ffn_hidden;
    if (m.shared_experts > 0)
      out << ", shared_experts: " << m.shared_experts
          << ", shared_ffn_hidden: " << m.shared_ffn_hidden;
    if (m.every > 1) out << ", every: " << m.every;
    if (m.first_dense > 0) out << ", first_dense: " << m.first_dense;
    if (m.groups > 0) out << ", groups: " << m.groups << ", group_top_k: " << m.group_top_k;
    out << " }\n";
  }
  if (t.latent) {
    const LatentAttention& a = *t.latent;
    out << "  latent_attention: { ";
    if (a.q_rank > 0) out << "q_lora_rank: " << a.q_rank << ", ";
    out << "kv_lora_rank: " << a.kv_rank << ", qk_rope_head_dim: " << a.rope_dim
        << ", qk_nope_head_dim: " << a.nope_dim << ", v_head_dim: " << a.value_dim << " }\n";
  }
  return out.str();
}

}  // namespace scaleout::core
