#include "core/reliability/checkpoint_size.hpp"

#include <algorithm>

#include "core/model/model_memory.hpp"
#include "core/parallel/model_split.hpp"
#include "core/parallel/parallel_state.hpp"

namespace scaleout::core {

namespace {

// fp32 weights and momentum: what a data-parallel plan's SGD checkpoint holds per parameter.
constexpr double kDataParallelBytes = 8;

CheckpointSize data_parallel_size(const Plan& plan) {
  CheckpointSize c;
  c.bytes = plan.workload.parameters * kDataParallelBytes;
  c.busiest_rank = c.busiest_node = c.bytes;
  c.read_bytes = c.bytes * plan.training.workers;
  c.busiest_node_read = c.bytes * std::min(plan.training.workers, plan.cluster.devices_per_node);
  return c;
}

CheckpointSize model_parallel_size(const Plan& plan) {
  const ModelSplit s = model_split(plan);
  const Parallelism par = parallelism_of(plan);
  const double d = s.data;
  const double state = kWeightBytes + kOptimizerBytes;
  CheckpointSize c;
  for (int stage = 0; stage < s.pipeline; ++stage) {
    double params = stage_parameters(plan, s, stage);
    double experts = par.expert > 1 ? stage_expert_parameters(plan, s, stage) : 0;
    // One copy of the stage: the dense part once, each expert rank's experts once.
    double copy = state * (params - experts + par.expert * experts);
    double first_rank = state * params;  // data rank 0, without ZeRO
    double held = first_rank;            // what each rank holds and reads back
    if (par.zero >= 1) {
      double shards = (params - experts) / d + experts * par.expert / d;
      first_rank = kOptimizerBytes * shards + kWeightBytes * (par.zero >= 3 ? shards : params);
      held = first_rank;
    }
    c.bytes += s.tensor * copy;
    c.busiest_rank = std::max(c.busiest_rank, first_rank);
    c.read_bytes += s.tensor * d * held;
  }
  // Megatron's numbering puts a node's devices on consecutive ranks, tensor first: a node holds
  // as many writers as it has devices, or as the plan has (data rank 0's alone without ZeRO).
  double ranks = static_cast<double>(s.tensor) * s.pipeline * s.data;
  double writers = par.zero >= 1 ? ranks : static_cast<double>(s.tensor) * s.pipeline;
  double per_node = plan.cluster.devices_per_node;
  c.busiest_node = c.busiest_rank * std::min(per_node, writers);
  c.busiest_node_read = c.busiest_rank * std::min(per_node, ranks);
  return c;
}

double node_rate(const Cluster& cluster) { return cluster.nic.bandwidth * cluster.nics_per_node; }

// The longer of the shared storage's time and the busiest node's; 0 when no rate is given.
double transfer_seconds(double bytes, double node_bytes, double storage_rate, const Cluster& c) {
  if (!(storage_rate > 0)) return 0;
  double node = node_rate(c) > 0 ? node_bytes / node_rate(c) : 0;
  return std::max(bytes / storage_rate, node);
}

// One rank of a model-parallel plan: see checkpoint_by_rank.
RankCheckpoint model_parallel_rank(const Plan& plan, const ParallelState& state, int rank) {
  const ModelSplit& s = state.split();
  const int experts_degree = state.degree(ParallelDim::kExpert);
  const RankCoords c = state.coordinates(rank);
  const double params = stage_parameters(plan, s, c.stage);
  const double experts = experts_degree > 1 ? stage_expert_parameters(plan, s, c.stage) : 0;
  const double dense = params - experts;
  const bool dense_writer = c.context == 0 && c.expert == 0 && c.data == 0;
  const bool expert_writer = c.context == 0 && c.data == 0;
  const double state_bytes = kWeightBytes + kOptimizerBytes;
  const int zero = parallelism_of(plan).zero;
  RankCheckpoint r;
  if (zero == 0) {
    r.write =
        (dense_writer ? state_bytes * dense : 0) + (expert_writer ? state_bytes * experts : 0);
    r.read = state_bytes * params;
    return r;
  }
  const double shard = dense / s.data + experts * experts_degree / s.data;
  const double weights =
      zero >= 3 ? shard : (dense_writer ? dense : 0) + (expert_writer ? experts : 0);
  r.write = kOptimizerBytes * shard + kWeightBytes * weights;
  r.read = kOptimizerBytes * shard + kWeightBytes * (zero >= 3 ? shard : params);
  return r;
}

}  // namespace

std::vector<RankCheckpoint> checkpoint_by_rank(const Plan& plan) {
  if (!plan.parallelism) {
    const double bytes = plan.workload.parameters * kDataParallelBytes;
    std::vector<RankCheckpoint> ranks(plan.training.workers, RankCheckpoint{0, bytes});
    ranks.front().write = bytes;
    return ranks;
  }
  const ParallelState state = ParallelState::of(plan);
  std::vector<RankCheckpoint> ranks(state.world_size());
  for (int r = 0; r < state.world_size(); ++r) ranks[r] = model_parallel_rank(plan, state, r);
  return ranks;
}

CheckpointSize checkpoint_size(const Plan& plan) {
  return plan.parallelism ? model_parallel_size(plan) : data_parallel_size(plan);
}

CheckpointTransfers checkpoint_transfers(const Plan& plan, const CheckpointSize& size) {
  const Storage& st = plan.cluster.storage;
  return {
      transfer_seconds(size.bytes, size.busiest_node, st.write_bandwidth, plan.cluster),
      transfer_seconds(size.read_bytes, size.busiest_node_read, st.read_bandwidth, plan.cluster)};
}

CheckpointTimes checkpoint_times(const Plan& plan, const CheckpointSize& size) {
  return checkpoint_times(plan, size, checkpoint_transfers(plan, size));
}

bool checkpoints_move_to_storage(const Plan& plan) {
  const Resilience& r = plan.resilience;
  return plan.reliability && (r.checkpoint_every > 0 || r.checkpoint_every_s > 0) &&
         !r.checkpoint_cost_given && plan.cluster.storage.write_bandwidth > 0;
}

CheckpointTimes checkpoint_times(const Plan& plan, const CheckpointSize& size,
                                 const CheckpointTransfers& transfers) {
  const Storage& st = plan.cluster.storage;
  const Resilience& r = plan.resilience;
  CheckpointTimes t;
  t.write_s = transfers.write_s;
  t.read_s = transfers.read_s;
  if (r.checkpoint_cost_given) {
    t.stall_s = r.checkpoint_cost;
    t.write_s = std::max(t.write_s, r.checkpoint_cost);
  } else if (r.checkpoint_asynchronous) {
    t.stall_s = st.host_copy_bandwidth > 0 ? size.busiest_rank / st.host_copy_bandwidth : 0;
  } else {
    t.stall_s = t.write_s;
  }
  if (!r.checkpoint_asynchronous) t.write_s = t.stall_s;
  return t;
}

}  // namespace scaleout::core
