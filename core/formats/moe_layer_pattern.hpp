// Megatron-LM's --moe-layer-freq, read and written: a whole number n (every n-th layer from the
// first is a MoE layer) or a Python list of 0 and 1, one a layer, as its DeepSeek-V3 recipe
// writes "([0]*3+[1]*58)". A plan describes the pattern as moe.every and moe.first_dense.
#pragma once

#include <optional>
#include <string>

#include "core/plan/plan.hpp"

namespace scaleout::core {

struct MoeLayerPattern {
  int every = 1;
  int first_dense = 0;
};

// The pattern of `text` over `layers` layers; nullopt when it is no list expression of the form
// [a, b, ...] * n + ... (parenthesized or not). Throws std::invalid_argument naming what is wrong
// when it is one but has another length than `layers`, or places its MoE layers in a way that
// every and first_dense cannot describe.
std::optional<MoeLayerPattern> parse_moe_layer_list(const std::string& text, int layers);

// The value of --moe-layer-freq for the shape's MoE layers: "n" for every n-th from the first,
// "([0]*k+[1]*m)" after k dense layers, or the whole list otherwise.
std::string moe_layer_freq_text(const TransformerShape& t);

}  // namespace scaleout::core
