// How a model-parallel plan's ranks are split: the degrees of each kind of parallelism, the batch
// split (model_split.hpp's numbers), where each rank sits in the grid and which groups it belongs
// to, and the nodes ranks fill. The one place that numbers ranks: every engine, the closed forms
// and the training program ask it rather than working the split out again.
//
// Ranks are numbered in Megatron-Core's default order "tp-cp-ep-dp-pp": tensor fastest, then
// context, expert, data, pipeline stage (megatron/core/parallel_state.py, RankGenerator). A
// tensor group is therefore consecutive ranks, so it sits inside a node when it fits. (Megatron
// keeps expert parallelism in a second RankGenerator and never has context and expert both above 1
// in one; here the five form one grid, which numbers as Megatron does whenever either is 1.)
#pragma once

#include <array>
#include <vector>

#include "core/parallel/model_split.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::core {

// The kinds of parallelism, slowest-varying last (Megatron-Core's order).
enum class ParallelDim { kTensor = 0, kContext, kExpert, kData, kPipeline };
inline constexpr int kParallelDims = 5;

// A degree for each kind (all default to 1).
struct ParallelDegrees {
  int tensor = 1, context = 1, expert = 1, data = 1, pipeline = 1;
};

// A rank's index along each kind: 0 <= index < that kind's degree.
struct RankCoords {
  int tensor = 0, context = 0, expert = 0, data = 0, stage = 0;
  bool operator==(const RankCoords&) const = default;
};

// How ranks fill nodes in the closed forms: consecutive ranks, `devices_per_node` to a node. An
// explicit network (links listed by hand) has no such order: every stage boundary counts as
// leaving a node.
struct RankPacking {
  int devices_per_node = 1;  // >= 1
  bool explicit_network = false;
};

class ParallelState {
 public:
  // The plan's split: its parallelism, or for a data-parallel plan every degree 1 but data =
  // training.workers. parallelism.expert and parallelism.context split the data-parallel ranks:
  // context x expert x data is split().data. Packing from the
  // cluster: devices_per_node (at least 1), explicit when network.kind is explicit.
  // layers_per_chunk is 0 without a transformer. REQUIRES: a validated plan.
  static ParallelState of(const Plan& plan);

  // A bare grid (for tests and callers without a plan): the batch split keeps ModelSplit's
  // defaults (one micro-batch of 1, one chunk, 0 layers). REQUIRES: every degree >= 1,
  // packing.devices_per_node >= 1.
  explicit ParallelState(const ParallelDegrees& degrees, const RankPacking& packing = {});

  // The degrees (tensor, pipeline, data) and the batch split, as model_split(plan) gives them.
  const ModelSplit& split() const { return split_; }
  // Each degree is >= 1; world_size() is their product.
  int degree(ParallelDim dim) const { return sizes_[static_cast<int>(dim)]; }
  int world_size() const { return world_size_; }
  // Ranks holding one pipeline stage: tensor x context x expert x data.
  long long ranks_per_stage() const;

  // REQUIRES: 0 <= rank < world_size().
  RankCoords coordinates(int rank) const;
  // REQUIRES: every index within its degree. Inverse of coordinates().
  int rank_of(const RankCoords& at) const;

  // The ranks that share every coordinate of `rank` except those along `dims` (Megatron's
  // get_ranks("tp-dp") for {kTensor, kData}), in increasing order, `rank` among them. An empty
  // `dims` gives {rank}. REQUIRES: 0 <= rank < world_size(); no dimension twice.
  std::vector<int> group(int rank, const std::vector<ParallelDim>& dims) const;
  // Every such group, ordered by first member: exactly Megatron's
  // generate_masked_orthogonal_rank_groups for the same dims. REQUIRES: no dimension twice.
  std::vector<std::vector<int>> groups(const std::vector<ParallelDim>& dims) const;

  int devices_per_node() const { return packing_.devices_per_node; }
  // The node `rank` sits on when ranks fill nodes in order (rank / devices_per_node), as the
  // closed forms assume; core::RankPlan::node_of_rank gives the topology's actual placement.
  // REQUIRES: rank >= 0.
  int packed_node_of(int rank) const { return rank / packing_.devices_per_node; }
  // Whether a transfer across the boundary after `stage` leaves a node: some rank of the stage
  // and its peer on the next stage (for the last stage, the first: the interleaved schedule's
  // wrap) sit on different packed nodes. Always true on an explicit network.
  // REQUIRES: 0 <= stage < pipeline degree.
  bool boundary_crosses_nodes(int stage) const;

 private:
  ParallelState(const ModelSplit& split, const ParallelDegrees& degrees,
                const RankPacking& packing);
  using DimMask = std::array<bool, kParallelDims>;
  static DimMask mask_of(const std::vector<ParallelDim>& dims);
  std::vector<int> group_of(int rank, const DimMask& varying) const;

  ModelSplit split_;
  std::array<int, kParallelDims> sizes_{};    // degrees in Megatron's order
  std::array<int, kParallelDims> strides_{};  // rank distance of one step along each
  int world_size_ = 1;
  RankPacking packing_;
};

}  // namespace scaleout::core
