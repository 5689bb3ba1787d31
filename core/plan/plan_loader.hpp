// Loading plans, topologies and workloads from YAML, with validation. Every error is an
// InputError naming the file, the line and the field.
#pragma once

#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

// Values given on the command line that replace the plan's.
struct PlanOverrides {
  std::optional<int> workers;
  std::optional<StrategyKind> strategy;
  // Kinds a sweep will run (--strategies). They replace nothing; a flat strategy knob that applies
  // to one of them (and not to the plan's own kind) loads as deprecated instead of being refused.
  std::vector<StrategyKind> strategies;
  // The split is what a search chooses (`plan --search`): the written `parallelism:` is a starting
  // point only, so its degrees need not divide the workers nor the batch, and its tensor and
  // pipeline degrees need not fit the model; with such a split the batch comes from
  // training.global_batch, which is then required.
  bool split_searched = false;
};

// Bounds on what a plan may describe: far beyond any real cluster or model, and low enough that
// every count and product the engines form stays exact in its type.
inline constexpr int kMaxNodes = 1 << 20;
inline constexpr long long kMaxDevices = 1 << 24;  // that a job takes, servers included
inline constexpr int kMaxDevicesPerNode = 4096;
inline constexpr int kMaxFatTreeK = 128;
inline constexpr double kMaxParameters = 1e15;  // 4 PB of fp32 gradient
inline constexpr double kMaxFlopPerSample = 1e21;
// Workers x batch_per_worker (samples per step) is counted in int by the engines.
inline constexpr long long kMaxSamplesPerStep = INT_MAX;

Plan load_plan(const std::string& path, const PlanOverrides& overrides = {});
Cluster load_cluster(const std::string& path);
Workload load_workload(const std::string& path);

// Checks what spans the parts of a plan (a grid that multiplies to the workers, enough devices,
// servers that fit, stragglers and failures inside the job, samples per step in range). Called
// by load_plan and again after any override changes the plan. `split_searched`: as in
// PlanOverrides, the written split's own checks are left out.
void validate_plan(const Plan& plan, bool split_searched = false);

}  // namespace scaleout::core
