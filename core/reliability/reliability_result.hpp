// The `reliability` object of a result (core::ReliabilityOutcome), written and read by one table
// of its keys.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "core/results/result.hpp"

namespace scaleout::core {

nlohmann::json reliability_to_json(const ReliabilityOutcome& o);
std::optional<ReliabilityOutcome> reliability_from_json(const nlohmann::json& result);

}  // namespace scaleout::core
