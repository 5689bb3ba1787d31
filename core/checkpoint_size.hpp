// What a checkpoint of a plan writes and what a restart reads back, from the split: each rank's
// weights and optimizer states as the data group shards them (ZeRO), and the rates of the storage
// the cluster names (`storage:`), shared by every writer and limited by each node's NICs.
#pragma once

#include "core/plan.hpp"

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

struct CheckpointTimes {
  double stall_s = 0;  // training stops this long per checkpoint
  double write_s = 0;  // until the checkpoint is on storage (asynchronous: beside training)
  double read_s = 0;   // reading it back at a restart
};

// `checkpoint.cost` when given (the stall; the write as long), else from checkpoint_size() and the
// cluster's `storage:`: the larger of all bytes over the storage's rate and the busiest node's
// over its NICs. Asynchronous checkpoints stall for the busiest rank's copy to host memory.
CheckpointTimes checkpoint_times(const Plan& plan, const CheckpointSize& size);

}  // namespace scaleout::core
