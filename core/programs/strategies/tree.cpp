// Topology-aware pipelined tree all-reduce, as NCCL's tree: inside each node the workers form a
// chain (the node's leader first); across nodes the leaders form a double binary tree, two
// complementary binary trees that each carry half of the bucket. Chunk by chunk, each half is
// reduced up its tree (along the chains into the leaders, then leader to leader up to the root)
// and broadcast back down the same way (pipelined_tree.hpp). A node is an inner node of at most
// one of the two trees, so each NIC carries about the bucket each way per phase, and a tree of m
// nodes is about log2(m) levels deep. (The tree it replaces ignored nodes: a binary tree over the
// ranks, whose links crossed node boundaries wherever the rank numbering put them.)
#include <algorithm>
#include <array>

#include "core/programs/strategies/double_tree.hpp"
#include "core/programs/strategies/node_groups.hpp"
#include "core/programs/strategies/pipelined_tree.hpp"
#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class Tree : public StrategyProgram {
 public:
  Tree(NodeGroups groups, std::int64_t chunk_elements)
      : groups_(std::move(groups)), chunk_(chunk_elements) {
    int m = groups_.nodes();
    for (int t = 0; t < 2; ++t) {
      for (int x = 0; x < m; ++x) links_[t].push_back(double_tree_links(t, x, m));
      height_[t].assign(m, 0);
      depth_[t].assign(m, 0);
      for (int x = 0; x < m; ++x)
        if (links_[t][x].parent < 0) measure(t, x, 0);
    }
  }

  void run(Fabric& fabric, Span bucket) override {
    std::vector<TreeRole> roles = {role(fabric.rank(), 0, split_part(bucket, 2, 0)),
                                   role(fabric.rank(), 1, split_part(bucket, 2, 1))};
    pipelined_reduce(fabric, roles, chunk_);
    pipelined_broadcast(fabric, roles, chunk_);
  }

  std::string describe() const override {
    return "tree: chains inside " + std::to_string(groups_.nodes()) +
           " nodes, a double binary tree across them";
  }

 private:
  int chain_length(int node) const { return static_cast<int>(groups_.members[node].size()); }

  // Sets the depth of node x's leader in tree t and, below it, every leader's height (the chain
  // of its node, or one more than its highest child leader).
  void measure(int t, int x, int depth) {
    depth_[t][x] = depth;
    int h = chain_length(x) - 1;
    for (int c : links_[t][x].children) {
      measure(t, c, depth + 1);
      h = std::max(h, height_[t][c] + 1);
    }
    height_[t][x] = h;
  }

  // Rank r's place in tree t: a leader links to the leaders of its tree neighbours and to the
  // second worker of its node; any other worker to its chain neighbours.
  TreeRole role(int r, int t, Span span) const {
    TreeRole role;
    role.span = span;
    int x = groups_.node_of[r], local = groups_.local_of[r], n = chain_length(x);
    const std::vector<int>& chain = groups_.members[x];
    if (local > 0) {
      role.parent = chain[local - 1];
      role.height = n - 1 - local;
      role.depth = depth_[t][x] + local;
    } else {
      const TreeLinks& links = links_[t][x];
      if (links.parent >= 0) role.parent = groups_.leader(links.parent);
      for (int c : links.children) {
        role.children.push_back(groups_.leader(c));
        role.child_heights.push_back(height_[t][c]);
      }
      role.height = height_[t][x];
      role.depth = depth_[t][x];
    }
    if (local + 1 < n) {
      role.children.push_back(chain[local + 1]);
      role.child_heights.push_back(n - 2 - local);
    }
    return role;
  }

  NodeGroups groups_;
  std::int64_t chunk_;
  std::array<std::vector<TreeLinks>, 2> links_;     // by tree, by node
  std::array<std::vector<int>, 2> height_, depth_;  // of each node's leader, by tree
};

}  // namespace

std::unique_ptr<StrategyProgram> make_tree(const RankLayout& layout, std::int64_t chunk_elements) {
  return std::make_unique<Tree>(group_by_node(layout), chunk_elements);
}

}  // namespace scaleout::core
