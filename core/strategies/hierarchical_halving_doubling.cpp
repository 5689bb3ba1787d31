// Hierarchical halving-doubling, as Goyal et al. (2017) ran Caffe2 over Gloo: reduce each node's
// workers into its leader, all-reduce among the leaders by recursive halving and doubling
// (halving_doubling_phases.hpp, folding when the node count is not a power of two), broadcast
// inside each node. Only the leaders use the network, one flow per NIC.
#include "core/strategies/halving_doubling_phases.hpp"
#include "core/strategies/node_leaders.hpp"
#include "core/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class HierarchicalHalvingDoubling : public StrategyProgram {
 public:
  HierarchicalHalvingDoubling(NodeGroups groups, std::int64_t chunk_elements)
      : groups_(std::move(groups)), chunk_(chunk_elements) {}

  void run(Fabric& fabric, Span bucket) override {
    int r = fabric.rank();
    reduce_to_leader(fabric, groups_, bucket, chunk_);
    if (groups_.local_of[r] == 0)
      halving_doubling_allreduce(
          fabric, groups_.nodes(), groups_.node_of[r],
          [this](int node) { return groups_.leader(node); }, bucket);
    broadcast_from_leader(fabric, groups_, bucket, chunk_);
  }

  std::string describe() const override {
    return "hierarchical halving-doubling: reduce to a leader in each of " +
           std::to_string(groups_.nodes()) + " nodes, halving-doubling among leaders, broadcast";
  }

 private:
  NodeGroups groups_;
  std::int64_t chunk_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_hierarchical_halving_doubling(const RankLayout& layout,
                                                                    std::int64_t chunk_elements) {
  return std::make_unique<HierarchicalHalvingDoubling>(group_by_node(layout), chunk_elements);
}

}  // namespace scaleout::core
