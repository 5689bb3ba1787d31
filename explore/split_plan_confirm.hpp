// The smallest cluster for a target, checked by simulation (`plan --search --target-throughput
// --refine K`): the closed form's answer holds only if SimGrid agrees. The answer's first K
// splits are simulated; while the fastest of them falls short of the target, the next whole-node
// count is searched and simulated the same way, up to the limit.
#pragma once

#include <optional>
#include <string>

#include "core/plan/plan.hpp"
#include "explore/split_plan.hpp"
#include "explore/split_refine.hpp"

namespace scaleout::sim {

struct ConfirmedCluster {
  SplitPlanAnswer answer;      // as smallest_split_cluster's, moved up when simulation said so
  SplitRefinement refinement;  // of answer.search
  // The simulated sequences/s of the fastest simulated split at answer.workers (none: no split
  // simulated there, so the closed form's answer stands unconfirmed).
  std::optional<double> simulated_sequences_per_s;
  std::vector<int> fell_short;  // counts whose closed form reached the target and SimGrid did not
  std::string message;          // what simulation said, in one line
};

// REQUIRES: `closed_form` from smallest_split_cluster(plan, request).
ConfirmedCluster confirm_by_simulation(const core::Plan& plan, const SplitPlanRequest& request,
                                       SplitPlanAnswer closed_form, const RefineOptions& options);

}  // namespace scaleout::sim
