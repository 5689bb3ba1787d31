// Hierarchical all-reduces: reduce each node's workers into its leader, all-reduce among the
// leaders, broadcast inside each node. Only the leaders use the network, one flow per NIC. The
// leaders' all-reduce is the one parameter:
// - a ring of the nodes, as Horovod's HOROVOD_HIERARCHICAL_ALLREDUCE first did it and Tencent's
//   system (Jia et al. 2018) does: each leader carries 2(m-1)/m of the bucket for m nodes;
// - recursive halving and doubling, as Goyal et al. (2017) ran Caffe2 over Gloo
//   (halving_doubling_phases.hpp, folding when the node count is not a power of two).
#include "core/programs/strategies/halving_doubling_phases.hpp"
#include "core/programs/strategies/node_leaders.hpp"
#include "core/programs/strategies/ring_phases.hpp"
#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

enum class LeadersAllreduce { kRing, kHalvingDoubling };

class HierarchicalAllreduce : public StrategyProgram {
 public:
  HierarchicalAllreduce(NodeGroups groups, std::int64_t chunk_elements, LeadersAllreduce leaders)
      : groups_(std::move(groups)), chunk_(chunk_elements), leaders_(leaders) {}

  void run(Fabric& fabric, Span bucket) override {
    int r = fabric.rank();
    reduce_to_leader(fabric, groups_, bucket, chunk_);
    if (groups_.local_of[r] == 0) allreduce_among_leaders(fabric, groups_.node_of[r], bucket);
    broadcast_from_leader(fabric, groups_, bucket, chunk_);
  }

  std::string describe() const override {
    const char* among = leaders_ == LeadersAllreduce::kRing ? "ring" : "halving-doubling";
    std::string name = leaders_ == LeadersAllreduce::kRing ? "hierarchical all-reduce"
                                                           : "hierarchical halving-doubling";
    return name + ": reduce to a leader in each of " + std::to_string(groups_.nodes()) +
           " nodes, " + among + " among leaders, broadcast";
  }

 private:
  void allreduce_among_leaders(Fabric& fabric, int node, Span bucket) {
    int m = groups_.nodes();
    if (leaders_ == LeadersAllreduce::kRing) {
      ring_allreduce(fabric,
                     {m, node, groups_.leader((node + m - 1) % m), groups_.leader((node + 1) % m)},
                     bucket);
    } else {
      halving_doubling_allreduce(
          fabric, m, node, [this](int n) { return groups_.leader(n); }, bucket);
    }
  }

  NodeGroups groups_;
  std::int64_t chunk_;
  LeadersAllreduce leaders_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_hierarchical_allreduce(const RankLayout& layout,
                                                             std::int64_t chunk_elements) {
  return std::make_unique<HierarchicalAllreduce>(group_by_node(layout), chunk_elements,
                                                 LeadersAllreduce::kRing);
}

std::unique_ptr<StrategyProgram> make_hierarchical_halving_doubling(const RankLayout& layout,
                                                                    std::int64_t chunk_elements) {
  return std::make_unique<HierarchicalAllreduce>(group_by_node(layout), chunk_elements,
                                                 LeadersAllreduce::kHalvingDoubling);
}

}  // namespace scaleout::core
