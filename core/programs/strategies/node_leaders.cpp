#include "core/programs/strategies/node_leaders.hpp"

#include "core/programs/strategies/pipelined_tree.hpp"

namespace scaleout::core {

namespace {

// The chain through this rank's node, leader first: worker i of n has height n - 1 - i and
// depth i.
TreeRole chain_role(const NodeGroups& groups, int rank, Span span) {
  const std::vector<int>& chain = groups.members[groups.node_of[rank]];
  int local = groups.local_of[rank], n = static_cast<int>(chain.size());
  TreeRole role;
  role.span = span;
  role.height = n - 1 - local;
  role.depth = local;
  if (local > 0) role.parent = chain[local - 1];
  if (local + 1 < n) {
    role.children.push_back(chain[local + 1]);
    role.child_heights.push_back(n - 2 - local);
  }
  return role;
}

}  // namespace

void reduce_to_leader(Fabric& fabric, const NodeGroups& groups, Span span, std::int64_t chunk) {
  pipelined_reduce(fabric, {chain_role(groups, fabric.rank(), span)}, chunk);
}

void broadcast_from_leader(Fabric& fabric, const NodeGroups& groups, Span span,
                           std::int64_t chunk) {
  pipelined_broadcast(fabric, {chain_role(groups, fabric.rank(), span)}, chunk);
}

}  // namespace scaleout::core
