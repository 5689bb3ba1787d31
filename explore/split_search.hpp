// Choosing the split: every tensor x pipeline x data x micro-batch x schedule x recompute x ZeRO x
// sequence-parallel combination of a transformer plan at its worker count and global batch,
// those that do not fit dropped (counted by reason), the rest ranked by the closed form's
// iteration time (over its goodput under failure rates), each with its bottleneck in words.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/plan/framework.hpp"
#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "explore/engine.hpp"

namespace scaleout::sim {

struct SplitSearchOptions {
  int top = 10;                      // candidates kept, fastest first
  bool tensor_across_nodes = false;  // also tensor groups larger than a node
  // Share of the device's memory a split leaves free (fragmentation, the framework's buffers):
  // splits needing more than (1 - margin) x memory are left out.
  double memory_margin = 0.10;
  // The framework whose splits are proposed; nullopt: the plan's `parallelism.framework`, else
  // Megatron-LM's (core/plan/framework.hpp).
  std::optional<core::Framework> framework;
  // Restrictions: an empty list allows every value the search tries. GPipe is tried only when
  // `schedules` names it.
  std::vector<int> tensors, pipelines, zeros;
  // Expert-parallel degrees a mixture of experts is tried with (empty: every degree that divides
  // the experts and the data-parallel degree).
  std::vector<int> experts;
  // Context-parallel degrees tried (empty: the plan's own; with a plan that writes `context` above
  // 1, every degree whose 2 x context chunks split the sequence, up to the data-parallel ranks).
  std::vector<int> contexts;
  std::vector<core::PipelineScheduleKind> schedules;
  int max_virtual_stages = 0;  // 0: no limit
};

struct SplitCandidate {
  core::Plan plan;  // the plan with this split
  core::RunResult result;
  std::string bottleneck;  // "pipeline bubble 21% of the step", ...
};

struct SplitSearch {
  std::vector<SplitCandidate> best;     // at most `top`, fastest first
  long evaluated = 0;                   // combinations predicted
  std::map<std::string, long> dropped;  // combinations left out, by reason
  double memory_margin = 0;             // the options' margin the memory reason counts with
  core::Framework framework = core::Framework::kMegatron;  // whose splits were proposed
  double wall_s = 0;
};

// REQUIRES: a validated plan with a transformer workload (its `parallelism:`, if any, is the
// starting point only). Throws core::InputError for a workload without `transformer:`.
SplitSearch search_splits(const core::Plan& plan, const SplitSearchOptions& options = {});

// What the search ranks splits by: the step, or with failure rates (`reliability:`) the step over
// its goodput, since a checkpoint's size and its writers follow the split: a slower step can
// train sooner.
double ranked_step(const core::RunResult& r);

// Whether two splits' ranked steps are the same to the closed form's precision (ties: their
// differences change nothing the engines time).
bool same_step(const core::RunResult& a, const core::RunResult& b);

// The part of the step that limits it, in words.
std::string bottleneck_of(const core::Plan& plan, const core::RunResult& result);

}  // namespace scaleout::sim
