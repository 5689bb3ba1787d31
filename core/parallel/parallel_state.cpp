#include "core/parallel/parallel_state.hpp"

#include <algorithm>
#include <cassert>

namespace scaleout::core {

namespace {

using Indices = std::array<int, kParallelDims>;

Indices as_indices(const RankCoords& at) {
  return {at.tensor, at.context, at.expert, at.data, at.stage};
}

RankCoords as_coords(const Indices& i) { return {i[0], i[1], i[2], i[3], i[4]}; }

// The batch split of a plan (what model_split(plan) returns).
ModelSplit split_of(const Plan& plan) {
  Parallelism par = parallelism_of(plan);
  ModelSplit s;
  s.tensor = par.tensor;
  s.pipeline = par.pipeline;
  s.data = plan.training.workers / (par.tensor * par.pipeline);
  s.context = par.context;
  s.microbatch = par.microbatch;
  s.global_batch = plan.training.global_batch > 0 ? plan.training.global_batch
                                                  : plan.training.batch_per_worker * s.replicas();
  s.microbatches = s.global_batch / (s.replicas() * s.microbatch);
  s.chunks = schedule_chunks(par.schedule, par.virtual_stages);
  s.schedule = par.schedule;
  // Uneven stages with virtual stages: each of a stage's chunks holds an equal share of its layers
  // (Megatron-Core's get_num_layers_to_build).
  // DualPipe's (a position's: one chunk).
  int share = is_dualpipe(par.schedule) ? 1 : s.chunks;
  s.first_stage_layers = par.first_stage_layers / share;
  s.last_stage_layers = par.last_stage_layers / share;
  s.embedding_layers = par.embedding_in_split ? 1 : 0;
  s.loss_layers = par.loss_in_split ? 1 : 0;
  if (plan.workload.transformer) {
    int layers = plan.workload.transformer->layers + s.embedding_layers + s.loss_layers;
    int middle = par.pipeline - (par.first_stage_layers > 0) - (par.last_stage_layers > 0);
    int rest = layers - par.first_stage_layers - par.last_stage_layers;
    if (is_dualpipe(par.schedule))  // positions, not stages, between the ends
      middle = s.route().positions() - (par.first_stage_layers > 0) - (par.last_stage_layers > 0);
    s.layers_per_chunk = par.first_stage_layers + par.last_stage_layers == 0
                             ? layers / s.route().positions()
                             : (middle > 0 ? rest / middle / share : 0);
    if (const auto& moe = plan.workload.transformer->moe) {
      s.moe_every = moe->every;
      s.moe_first_dense = moe->first_dense;
    }
  }
  return s;
}

}  // namespace

ParallelState ParallelState::of(const Plan& plan) {
  ModelSplit s = split_of(plan);
  ParallelDegrees d;
  d.tensor = s.tensor;
  // Expert parallelism splits the data-parallel ranks (Megatron-Core's expert RankGenerator with
  // the expert tensor size equal to the tensor size): runs of `expert` consecutive ones share out
  // the experts, so the dense layers' data group is "ep-dp" and the experts' is "dp".
  // Context parallelism splits them too, fastest after the tensor group ("tp-cp-ep-dp-pp").
  int expert = plan.parallelism ? plan.parallelism->expert : 1;
  d.context = s.context;
  d.expert = expert;
  d.data = s.data / expert / s.context;
  d.pipeline = s.pipeline;
  RankPacking packing;
  packing.devices_per_node = std::max(1, plan.cluster.devices_per_node);
  packing.explicit_network = plan.cluster.network.kind == NetworkKind::kExplicit;
  return ParallelState(s, d, packing);
}

ParallelState::ParallelState(const ParallelDegrees& degrees, const RankPacking& packing)
    : ParallelState(ModelSplit{}, degrees, packing) {
  split_.tensor = degrees.tensor;
  split_.pipeline = degrees.pipeline;
  split_.data = degrees.data;
}

ParallelState::ParallelState(const ModelSplit& split, const ParallelDegrees& degrees,
                             const RankPacking& packing)
    : split_(split),
      sizes_{degrees.tensor, degrees.context, degrees.expert, degrees.data, degrees.pipeline},
      packing_(packing) {
  assert(packing.devices_per_node >= 1);
  int stride = 1;
  for (int i = 0; i < kParallelDims; ++i) {
    assert(sizes_[i] >= 1);
    strides_[i] = stride;
    stride *= sizes_[i];
  }
  world_size_ = stride;
}

long long ParallelState::ranks_per_stage() const {
  return static_cast<long long>(strides_[static_cast<int>(ParallelDim::kPipeline)]);
}

RankCoords ParallelState::coordinates(int rank) const {
  assert(rank >= 0 && rank < world_size_);
  Indices at{};
  for (int i = 0; i < kParallelDims; ++i) at[i] = rank / strides_[i] % sizes_[i];
  return as_coords(at);
}

int ParallelState::rank_of(const RankCoords& at) const {
  Indices index = as_indices(at);
  int rank = 0;
  for (int i = 0; i < kParallelDims; ++i) {
    assert(index[i] >= 0 && index[i] < sizes_[i]);
    rank += index[i] * strides_[i];
  }
  return rank;
}

ParallelState::DimMask ParallelState::mask_of(const std::vector<ParallelDim>& dims) {
  DimMask mask{};
  for (ParallelDim d : dims) {
    assert(!mask[static_cast<int>(d)]);
    mask[static_cast<int>(d)] = true;
  }
  return mask;
}

// From the rank with index 0 along every varying dimension, each combination of their indices,
// the first varying dimension fastest: ranks in increasing order, as strides grow along the order.
std::vector<int> ParallelState::group_of(int rank, const DimMask& varying) const {
  Indices at = as_indices(coordinates(rank));
  int base = rank, size = 1;
  for (int i = 0; i < kParallelDims; ++i)
    if (varying[i]) {
      base -= at[i] * strides_[i];
      size *= sizes_[i];
    }
  std::vector<int> members;
  members.reserve(size);
  for (int k = 0; k < size; ++k) {
    int member = base, rest = k;
    for (int i = 0; i < kParallelDims; ++i)
      if (varying[i]) {
        member += rest % sizes_[i] * strides_[i];
        rest /= sizes_[i];
      }
    members.push_back(member);
  }
  return members;
}

std::vector<int> ParallelState::group(int rank, const std::vector<ParallelDim>& dims) const {
  return group_of(rank, mask_of(dims));
}

std::vector<std::vector<int>> ParallelState::groups(const std::vector<ParallelDim>& dims) const {
  DimMask varying = mask_of(dims);
  std::vector<std::vector<int>> all;
  for (int rank = 0; rank < world_size_; ++rank) {
    std::vector<int> g = group_of(rank, varying);
    if (g.front() == rank) all.push_back(std::move(g));  // each group once, at its first member
  }
  return all;
}

// Ranks of consecutive stages are ranks_per_stage() apart; the last stage's go round to the
// first's.
bool ParallelState::boundary_crosses_nodes(int stage) const {
  if (packing_.explicit_network) return true;
  int dpn = packing_.devices_per_node;
  long long stage_ranks = ranks_per_stage();
  long long first = stage * stage_ranks;
  long long hop = stage == degree(ParallelDim::kPipeline) - 1 ? -first : stage_ranks;
  for (long long r = first; r < first + stage_ranks; ++r)
    if (r / dpn != (r + hop) / dpn) return true;
  return false;
}

}  // namespace scaleout::core
