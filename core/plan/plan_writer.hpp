// Writing a plan back as YAML that `scaleout` loads to the same plan: the cluster and the workload
// inline, every value in SI units with full precision ("12500000000B/s", "2e-06s").
#pragma once

#include <string>

#include "core/plan/plan.hpp"

namespace scaleout::core {

std::string plan_to_yaml(const Plan& plan);

// Writes plan_to_yaml(plan) to `path` atomically. Throws std::runtime_error when it cannot.
void save_plan(const Plan& plan, const std::string& path);

}  // namespace scaleout::core
