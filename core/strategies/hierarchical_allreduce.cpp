// Hierarchical all-reduce as Horovod's HOROVOD_HIERARCHICAL_ALLREDUCE first did it and Tencent's
// system (Jia et al. 2018) does: reduce each node into its leader, all-reduce among the leaders
// over a ring of the nodes, broadcast inside each node. Only the leaders use the network, one
// flow per NIC, each carrying 2(m-1)/m of the bucket for m nodes.
#include "core/strategies/node_leaders.hpp"
#include "core/strategies/ring_phases.hpp"
#include "core/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class HierarchicalAllreduce : public StrategyProgram {
 public:
  HierarchicalAllreduce(NodeGroups groups, std::int64_t chunk_elements)
      : groups_(std::move(groups)), chunk_(chunk_elements) {}

  void run(Fabric& fabric, Span bucket) override {
    int r = fabric.rank(), node = groups_.node_of[r], m = groups_.nodes();
    reduce_to_leader(fabric, groups_, bucket, chunk_);
    if (groups_.local_of[r] == 0)
      ring_allreduce(fabric,
                     {m, node, groups_.leader((node + m - 1) % m), groups_.leader((node + 1) % m)},
                     bucket);
    broadcast_from_leader(fabric, groups_, bucket, chunk_);
  }

  std::string describe() const override {
    return "hierarchical all-reduce: reduce to a leader in each of " +
           std::to_string(groups_.nodes()) + " nodes, ring among leaders, broadcast";
  }

 private:
  NodeGroups groups_;
  std::int64_t chunk_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_hierarchical_allreduce(const RankLayout& layout,
                                                             std::int64_t chunk_elements) {
  return std::make_unique<HierarchicalAllreduce>(group_by_node(layout), chunk_elements);
}

}  // namespace scaleout::core
