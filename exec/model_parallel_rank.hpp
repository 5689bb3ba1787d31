// One executed rank of a model-parallel plan over Gloo: the model-parallel training program on real
// buffers, checking that every stage transfer carries the micro-batch its sender meant for it,
// every tensor all-reduce's sums and the data group's exact gradient sums; and the run's result
// from every rank's report.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "exec/exec_options.hpp"
#include "exec/rank_main.hpp"

namespace scaleout::exec {

// Runs the rank (REQUIRES: plan.parallelism) and hands its report (per step start, end, compute,
// tensor and data seconds, wrong elements) to `finish` while its connections are still open.
void run_model_parallel_rank(const core::Plan& plan, const ExecOptions& options,
                             const RankSetup& setup,
                             const std::function<void(const nlohmann::json&)>& finish);

// The measured result: each step from the first rank's start to the last rank's end, the phases of
// the busiest rank, every rank's wrong elements.
core::RunResult aggregate_model_parallel(const core::Plan& plan,
                                         const std::vector<nlohmann::json>& reports,
                                         const ExecOptions& options);

}  // namespace scaleout::exec
