#include "sim/fidelity_check.hpp"

#include <cstdio>

#include "core/parallel/rank_plan.hpp"

namespace scaleout::sim {

FidelityCheck check_fast_against_steps(const core::Plan& plan, const SimOptions& options,
                                       const core::RunResult& fast) {
  FidelityCheck c;
  if (fast.fidelity != fidelity_name(Fidelity::kFast) || !options.trace_path.empty() ||
      core::plan_ranks(plan).ranks() > kFidelityCheckMostRanks)
    return c;
  SimOptions step = options;
  step.fidelity = Fidelity::kStep;
  c.checked = true;
  c.fast_s = fast.step_time_s;
  c.step_s = simulate(plan, step).step_time_s;
  return c;
}

core::RunResult with_fidelity_check(const core::Plan& plan, const SimOptions& options,
                                    core::RunResult fast) {
  if (!kCheckFastFidelity) return fast;
  FidelityCheck c = check_fast_against_steps(plan, options, fast);
  if (!c.agree()) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "fast fidelity gave a %.6g s step where the steps one by one give %.6g s "
                  "(%+.1f%%): use --fidelity step (a debug build's check)",
                  c.fast_s, c.step_s, 100 * (c.fast_s / c.step_s - 1));
    fast.warnings.push_back(buf);
  }
  return fast;
}

}  // namespace scaleout::sim
