// The result keys of a model-parallel run: `parallelism`, `tokens_per_s`, `parameters`,
// `active_parameters`, `model_flops_per_s_per_device`, `mfu`, `memory_bytes` and the phases
// `bubble_s`, `tensor_comm_s`, `expert_comm_s`, `pipeline_comm_s` and `data_comm_s`.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "core/results/result.hpp"

namespace scaleout::core {

// Adds the keys to a result's JSON (whose "phases" already exist).
void add_model_parallel_keys(nlohmann::json& j, const ModelParallelOutcome& m);

// Reads them back; nullopt when the JSON has no `parallelism` (a data-parallel result).
std::optional<ModelParallelOutcome> model_parallel_from_json(const nlohmann::json& j);

}  // namespace scaleout::core
