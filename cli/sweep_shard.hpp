// Sharded sweeps on a cluster's scheduler: `--shard K/N`, `--shard auto` from a Slurm job array,
// and the sbatch script `--emit-slurm N` prints.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "explore/sweep.hpp"

namespace scaleout::cli {

// Reads an environment variable; nullptr when it is not set.
using EnvLookup = std::function<const char*(const char*)>;

// "K/N" with 0 <= K < N, or "auto": K = (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) /
// SLURM_ARRAY_TASK_STEP (1 when unset) and N = SLURM_ARRAY_TASK_COUNT. Throws core::InputError
// naming --shard (and the variable) for anything else.
sim::Shard parse_shard(const std::string& text, const EnvLookup& env);

// What the emitted script runs: the binary, the plan and the sweep's grid and options.
struct SlurmSweep {
  std::string binary;  // absolute path of scaleout
  std::string plan;    // absolute
  std::string output;  // the merged CSV, absolute; shard k writes OUTPUT.shard-k.csv
  std::vector<int> workers;
  std::vector<core::StrategyKind> strategies;
  std::string engine, fidelity;
  int jobs = 2;
  int shards = 1;
  std::vector<std::string> vary;  // each --vary as given
};

// An sbatch script for a job array of `shards` tasks, each running one shard (`--shard auto`,
// `--resume`, so a requeued task goes on); the first task submits the merge, which runs once every
// task ended well (`--dependency=afterok` on the array).
std::string slurm_script(const SlurmSweep& sweep);

// Where shard k of `output` is written: "out.csv" -> "out.shard-k.csv".
std::string shard_path(const std::string& output, const std::string& k);

}  // namespace scaleout::cli
