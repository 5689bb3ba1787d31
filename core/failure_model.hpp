// What failures cost a run that restarts from its last checkpoint: given the failure-free step
// times, replay the timeline with checkpoints (every N steps, each stalling training), failures
// (at a step or a time, each firing once) that throw away the work since the last checkpoint, and
// the restart time after each.
#pragma once

#include <string>
#include <vector>

#include "core/plan.hpp"

namespace scaleout::core {

struct FailureOutcome {
  std::string policy = "none";  // none | restart_from_checkpoint | continue_without_failed_workers
  int failures = 0;
  double wall_s = 0;          // time to finish every step
  double lost_work_s = 0;     // work thrown away (redone after restarts)
  double restart_s = 0;       // total restart time
  double checkpoint_s = 0;    // total checkpointing stall
  double goodput_samples_per_s = 0;  // useful samples over wall time
  std::vector<int> left_workers;     // continue policy: workers that left
};

FailureOutcome restart_from_checkpoint(const std::vector<double>& step_times, const Resilience& resilience,
                                       double samples_per_step);

}  // namespace scaleout::core
