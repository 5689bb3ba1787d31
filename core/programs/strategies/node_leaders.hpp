// The first and last phase of the strategies that all-reduce across nodes between one leader per
// node: reduce the node's workers into its leader, and broadcast the leader's result back, each a
// pipeline along the node's chain of workers in chunks (as NCCL's reduce and broadcast inside a
// node). Nodes may hold different numbers of workers.
#pragma once

#include <cstdint>

#include "core/programs/fabric.hpp"
#include "core/programs/strategies/node_groups.hpp"

namespace scaleout::core {

// Afterwards the leader of this rank's node holds the node's sum of `span`.
void reduce_to_leader(Fabric& fabric, const NodeGroups& groups, Span span, std::int64_t chunk);

// Afterwards every worker of the node holds its leader's `span`.
void broadcast_from_leader(Fabric& fabric, const NodeGroups& groups, Span span, std::int64_t chunk);

}  // namespace scaleout::core
