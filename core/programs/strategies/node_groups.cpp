#include "core/programs/strategies/node_groups.hpp"

#include <algorithm>
#include <map>

namespace scaleout::core {

int NodeGroups::widest() const {
  std::size_t w = 0;
  for (const auto& m : members) w = std::max(w, m.size());
  return static_cast<int>(w);
}

NodeGroups group_by_node(const RankLayout& layout) {
  std::map<int, std::vector<int>> by_node;
  for (int r = 0; r < layout.workers; ++r) by_node[layout.worker_node[r]].push_back(r);
  NodeGroups g;
  g.node_of.resize(layout.workers);
  g.local_of.resize(layout.workers);
  for (auto& [node, ranks] : by_node) {
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      g.node_of[ranks[i]] = static_cast<int>(g.members.size());
      g.local_of[ranks[i]] = static_cast<int>(i);
    }
    g.members.push_back(std::move(ranks));
  }
  return g;
}

}  // namespace scaleout::core
