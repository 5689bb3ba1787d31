// The program's view of one rank for a run (core/programs/strategies/model_parallel_training.hpp):
// private to the program's sources.
#pragma once

#include <vector>

#include "core/programs/strategies/model_parallel_training.hpp"

namespace scaleout::core {

// One rank's group views and data program, made once per run.
struct ModelParallelTraining::Rank {
  Fabric& fabric;
  Fabric& tensor;
  Fabric& data;
  StrategyProgram* data_program;
  ModelParallelObserver& observer;
  ModelParallelChecks* checks;
  RankCoords at;
  std::vector<int> data_members;
  // Expert parallelism: the expert-parallel group, and the experts' data group and its program.
  Fabric& experts;
  int experts_per_node;  // the two-level all-to-all's members a node (0: pairwise)
  double node_share;     // of each node's block, the share that crosses (token_exchange.hpp)
  Fabric& expert_data;
  StrategyProgram* expert_data_program;
  std::vector<int> expert_data_members;
  Fabric& context;        // the context-parallel group (one member without context parallelism)
  int context_first = 0;  // its first member's rank: names the group in the checks' labels
};

}  // namespace scaleout::core
