// Hierarchical ring (as in Tencent's and Horovod's hierarchical all-reduce): reduce-scatter inside
// each node, all-reduce each segment over a ring of the nodes, all-gather inside each node.
#include <map>

#include "core/plan/input_error.hpp"
#include "core/programs/strategies/ring_phases.hpp"
#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class HierarchicalRing : public StrategyProgram {
 public:
  HierarchicalRing(std::vector<std::vector<int>> nodes, std::vector<int> node_index,
                   std::vector<int> local_index)
      : nodes_(std::move(nodes)),
        node_index_(std::move(node_index)),
        local_index_(std::move(local_index)) {}

  void run(Fabric& fabric, Span bucket) override {
    int r = fabric.rank();
    int node = node_index_[r], local = local_index_[r];
    RingGroup inside = ring_through(nodes_[node], local);
    int n = static_cast<int>(nodes_.size());
    RingGroup across{n, node, nodes_[(node + n - 1) % n][local], nodes_[(node + 1) % n][local]};

    int per_node = static_cast<int>(nodes_[node].size());
    ring_reduce_scatter(fabric, inside, bucket);
    ring_allreduce(fabric, across, split_part(bucket, per_node, owned_segment(inside)));
    ring_allgather(fabric, inside, bucket);
  }

  std::string describe() const override {
    return "hierarchical ring: " + std::to_string(nodes_.size()) + " nodes of " +
           std::to_string(nodes_.front().size()) + " workers";
  }

 private:
  std::vector<std::vector<int>> nodes_;  // workers of each node, in rank order
  std::vector<int> node_index_, local_index_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_hierarchical_ring(const Plan& plan,
                                                        const RankLayout& layout) {
  std::map<int, std::vector<int>> by_node;
  for (int r = 0; r < layout.workers; ++r) by_node[layout.worker_node[r]].push_back(r);
  std::vector<std::vector<int>> nodes;
  std::vector<int> node_index(layout.workers), local_index(layout.workers);
  for (auto& [node, members] : by_node) {
    if (members.size() != by_node.begin()->second.size())
      throw InputError(plan.file, plan.training.workers_line, "training.workers",
                       "hierarchical_ring needs the same number of workers on every node; " +
                           std::to_string(layout.workers) + " workers do not fill whole nodes");
    for (std::size_t i = 0; i < members.size(); ++i) {
      node_index[members[i]] = static_cast<int>(nodes.size());
      local_index[members[i]] = static_cast<int>(i);
    }
    nodes.push_back(members);
  }
  return std::make_unique<HierarchicalRing>(std::move(nodes), std::move(node_index),
                                            std::move(local_index));
}

}  // namespace scaleout::core
