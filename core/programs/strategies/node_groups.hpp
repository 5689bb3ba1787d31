// The workers of each node, as strategies that treat nodes apart see them: nodes in index order,
// each node's workers in rank order, its first worker the node's leader.
#pragma once

#include <vector>

#include "core/programs/strategy.hpp"

namespace scaleout::core {

struct NodeGroups {
  std::vector<std::vector<int>> members;  // by node (only nodes holding workers), in rank order
  std::vector<int> node_of;               // worker rank -> index into members
  std::vector<int> local_of;              // worker rank -> position inside its node

  int nodes() const { return static_cast<int>(members.size()); }
  int leader(int node) const { return members[node].front(); }
  // The largest number of workers on one node.
  int widest() const;
};

// Groups the layout's workers by node. Nodes may hold different numbers of workers.
NodeGroups group_by_node(const RankLayout& layout);

}  // namespace scaleout::core
