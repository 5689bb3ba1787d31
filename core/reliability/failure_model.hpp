// What failures cost a run that restarts from its last checkpoint: given the failure-free step
// times, replay the timeline with checkpoints (every N steps, each stalling training), failures
// (at a step or a time, each firing once) that throw away the work since the last checkpoint, and
// the restart time after each.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"

namespace scaleout::core {

// The outcome in the result schema's own type (wall_s: time to finish every step; lost_work_s: work
// thrown away and redone; goodput: useful samples over wall time).
ResilienceOutcome restart_from_checkpoint(const std::vector<double>& step_times,
                                          const Resilience& resilience, double samples_per_step);

// The same for `steps` steps of `step_time` each, without a list: in closed form when no failure
// is planned (the cost does not grow with the steps), replayed otherwise.
ResilienceOutcome restart_uniform_steps(long steps, double step_time, const Resilience& resilience,
                                        double samples_per_step);

}  // namespace scaleout::core
