// Loading plans, topologies and workloads from YAML, with validation. Every error is an
// InputError naming the file, the line and the field.
#pragma once

#include <optional>
#include <string>

#include "core/plan.hpp"

namespace scaleout::core {

// Values given on the command line that replace the plan's.
struct PlanOverrides {
  std::optional<int> workers;
  std::optional<StrategyKind> strategy;
};

Plan load_plan(const std::string& path, const PlanOverrides& overrides = {});
Cluster load_cluster(const std::string& path);
Workload load_workload(const std::string& path);

// Checks what spans the parts of a plan (a grid that multiplies to the workers, enough devices,
// servers that fit). Called by load_plan and again after any override changes the plan.
void validate_plan(const Plan& plan);

}  // namespace scaleout::core
