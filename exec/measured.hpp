// The measured result of an executed run, from every rank's report: step times folded as the
// simulator folds them, phases, the exact-sum check's wrong elements, the baselines' median runs,
// and the measured timeline (Chrome trace) when asked for.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "exec/exec_options.hpp"

namespace scaleout::exec {

// `reports[r]` is rank r's report (rank_main.hpp); `wall` the run's wall time in seconds.
core::RunResult aggregate(const core::Plan& plan, const std::vector<nlohmann::json>& reports,
                          int servers, const ExecOptions& options, double wall);

}  // namespace scaleout::exec
