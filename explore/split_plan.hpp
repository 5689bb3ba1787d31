// The smallest cluster for a target with its best split: the search over splits (split_search.hpp)
// at each whole-node worker count, the global batch held, up to a limit. Worker counts double
// from one node until the best split reaches the target; then every whole-node count between that
// doubling and the one below is searched in order, since a count whose data degree does not divide
// the global batch has no split at all (the answer is not monotone there, so it is not bisected).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "explore/split_search.hpp"

namespace scaleout::sim {

struct SplitPlanRequest {
  double sequences_per_s = 0;  // the target (samples/s of a transformer plan)
  int max_workers = 1024;
  std::optional<double> price_per_device_hour;  // else the topology's; neither: no cost
  SplitSearchOptions search;
};

struct SplitPlanAnswer {
  bool reachable = false;
  int workers = 0;         // the smallest count reaching the target (reachable)
  std::vector<int> tried;  // worker counts searched, ascending
  SplitSearch search;      // at `workers` (reachable), else at the fastest count tried
  std::optional<double> cost_per_hour;
  std::string message;  // the answer in one line
};

// `plan` with its global batch written out (from batch_per_worker when it gives none), so that it
// is held as the workers change.
core::Plan with_global_batch(const core::Plan& plan);

// The search at `workers`, the split left to it (the plan's framework kept unless `options` name
// one). REQUIRES: `plan` from with_global_batch.
SplitSearch search_at(const core::Plan& plan, int workers, const SplitSearchOptions& options);

// The answer in one line (SplitPlanAnswer::message): "reachable: 1152 workers, tensor 8 x ...".
std::string describe_answer(const SplitPlanAnswer& a, double required);

// Throws core::InputError for a plan without a transformer workload or a target <= 0.
SplitPlanAnswer smallest_split_cluster(const core::Plan& plan, const SplitPlanRequest& request);

// The best split at each of `sizes` workers, the global batch held (none where no split fits or
// is valid): what the GUI's planning panel lists.
struct SizeBest {
  int workers = 0;
  std::optional<SplitCandidate> best;
  long evaluated = 0;
};
std::vector<SizeBest> best_split_per_size(const core::Plan& plan, const std::vector<int>& sizes,
                                          const SplitSearchOptions& options = {});

}  // namespace scaleout::sim
