// What a result was computed from, so that results of different plans are not compared by
// mistake: a hash of the plan as loaded (every value, normalized: the plan writer's YAML, parts
// inline, SI units), with the strategy, workers and cluster named beside it for the message.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/plan/plan.hpp"

namespace scaleout::core {

struct PlanStamp {
  std::string hash;  // 16 hex digits (FNV-1a 64 of the normalized plan)
  std::string strategy;
  int workers = 0;
  std::string cluster;
};

// 64-bit FNV-1a of `text`, as 16 hex digits: the plan stamp's hash and the sweep CSV's plan_hash.
std::string hash_hex(const std::string& text);

// training.steps is left out of the hash: a step's prediction does not depend on how many are run,
// and a short measured run is compared with a longer prediction.
PlanStamp plan_stamp(const Plan& plan);

nlohmann::json stamp_to_json(const PlanStamp& s);
// Nothing when `j` holds no stamp (a result written before stamps existed).
std::optional<PlanStamp> stamp_from_json(const nlohmann::json& j);

// Empty when the stamps agree, else what differs ("strategy ring vs torus2d, workers 64 vs 4"),
// or "the plans differ (hash ... vs ...)" when only values inside the plan do.
std::string stamp_difference(const PlanStamp& a, const PlanStamp& b);

}  // namespace scaleout::core
