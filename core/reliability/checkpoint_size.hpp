// What a checkpoint of a plan writes and what a restart reads back, from the split: each rank's
// weights and optimizer states as the data group shards them (ZeRO), and the rates of the storage
// the cluster names (`storage:`), shared by every writer and limited by each node's NICs.
#pragma once

#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

struct CheckpointSize {
  double bytes = 0;         // written by all ranks together (one copy of the training state)
  double busiest_rank = 0;  // bytes the rank writing the most writes
  double busiest_node = 0;  // bytes the node writing the most writes
  double read_bytes = 0;    // read back by all ranks at a restart (each reads what it holds)
  double busiest_node_read = 0;
};

// Model-parallel plans: per parameter, 16-bit weights (2 bytes) and Adam's fp32 master weights,
// momentum and variance (12), the weights written by data rank 0 (all data ranks with ZeRO-3) and
// the optimizer states by the data rank that holds them (data rank 0 without ZeRO). Data-parallel
// plans: fp32 weights and momentum (8 bytes per parameter, SGD's), written by worker 0.
CheckpointSize checkpoint_size(const Plan& plan);

// What one rank writes at a checkpoint and reads back at a restart (bytes).
struct RankCheckpoint {
  double write = 0;
  double read = 0;
};

// By rank (model-parallel plans: Megatron's rank order, core/parallel/parallel_state.hpp;
// data-parallel plans: the workers): the same split as checkpoint_size(), rank by rank, so the
// writes add up to its `bytes`, the reads to its `read_bytes`, and the largest write is its
// `busiest_rank`. Without ZeRO the dense part of a stage is written by its data rank 0 and each
// expert rank's experts by that rank's first data replica.
std::vector<RankCheckpoint> checkpoint_by_rank(const Plan& plan);

// Moving a checkpoint: every rank's part to storage, and back at a restart.
struct CheckpointTransfers {
  double write_s = 0;
  double read_s = 0;
};

// In closed form: the larger of all bytes over the storage's rate and the busiest node's over its
// NICs (0 when the storage's rate is not given).
CheckpointTransfers checkpoint_transfers(const Plan& plan, const CheckpointSize& size);

struct CheckpointTimes {
  double stall_s = 0;  // training stops this long per checkpoint
  double write_s = 0;  // until the checkpoint is on storage (asynchronous: beside training)
  double read_s = 0;   // reading it back at a restart
};

// `checkpoint.cost` when given (the stall; the write as long), else from checkpoint_size() and the
// cluster's `storage:`: the larger of all bytes over the storage's rate and the busiest node's
// over its NICs. Asynchronous checkpoints stall for the busiest rank's copy to host memory.
CheckpointTimes checkpoint_times(const Plan& plan, const CheckpointSize& size);
// The same from transfers timed elsewhere (a simulation of the platform's links).
CheckpointTimes checkpoint_times(const Plan& plan, const CheckpointSize& size,
                                 const CheckpointTransfers& transfers);

// Whether the plan's checkpoints are timed by their transfers to `storage:` (checkpoints asked,
// no `checkpoint.cost` given, a write rate given).
bool checkpoints_move_to_storage(const Plan& plan);

}  // namespace scaleout::core
