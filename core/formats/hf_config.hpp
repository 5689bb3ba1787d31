// A transformer's dimensions from a Hugging Face `config.json`, for the architectures whose
// parameters and FLOPs scaleout's transformer describes: Llama 1-3, Mistral, Qwen2 (SwiGLU,
// rotary positions, grouped-query attention), Gemma and Gemma 2 (wide heads, GeGLU), Mixtral and
// Qwen2-MoE (their mixtures of experts), GPT-2 (learned positions, tied embeddings), GPT-NeoX and
// Falcon (GeLU MLP, rotary). Others are refused, naming why.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

struct HfModel {
  std::string name;        // the config's model_type and size, e.g. "llama-32x4096"
  TransformerShape shape;  // line 0
  // How each field was derived, one line each ("hidden 4096: hidden_size").
  std::vector<std::string> derivation;
  // Gemma 2: the tokens its local layers attend over (sliding_window); 0 for every other model.
  int local_window = 0;
};

// Reads `path`. `sequence` > 0 replaces the config's context length (max_position_embeddings),
// which is the longest the model takes, not necessarily the one it trains at. Throws InputError
// naming the file and the key for a file that is not such a config, an architecture not
// described, or a field out of range; and, for Gemma 2, a sequence beyond its local layers'
// window (their shorter attention is not modelled).
HfModel read_hf_config(const std::string& path, int sequence = 0);

// The workload YAML for `model` (name, transformer), with the derivation as comments.
std::string hf_workload_yaml(const HfModel& model, const std::string& source);

}  // namespace scaleout::core
