// A fault for tests (Faults::break_schedule_rank): the training program with one rank running its
// first two forwards in the wrong order, so that the stage after it receives each of the two
// micro-batches where the other was expected; the run's checks must count them and the run fails.
#pragma once

#include <memory>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/programs/strategies/model_parallel_training.hpp"
#include "exec/faults.hpp"

namespace scaleout::exec {

// The program an executed rank runs: the plan's, or with `faults.break_schedule_rank` set, one
// whose named rank breaks its order. `receive_ahead` as core::ModelParallelTraining takes it.
std::unique_ptr<core::ModelParallelTraining> training_program(const core::Plan& plan,
                                                              std::vector<int> rank_node,
                                                              const Faults& faults,
                                                              bool receive_ahead = true);

}  // namespace scaleout::exec
