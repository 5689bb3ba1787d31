// All-to-all over a group (a group view of the fabric): the token dispatch and combine of expert
// parallelism, written once for every engine. Pairwise, or hierarchical: inside each node first.
#pragma once

#include <vector>

#include "core/programs/fabric.hpp"

namespace scaleout::core {

// `send` and `receive` each hold group.size() equal segments, one a member. In step k (1 to n-1)
// a member sends its segment for the member k after it and receives, into that member's segment,
// what the member k before it holds for it; its own segment stays where it is. Each member sends
// (n-1)/n of `send`. REQUIRES: send.count == receive.count, a multiple of the group's size.
void pairwise_all_to_all(Fabric& group, Span send, Span receive);

// The same exchange in two levels, for members ordered node by node, `per_node` to a node
// (member m is place m % per_node of node m / per_node). First, pairwise inside the node: a member
// passes to the member of place j of its node every segment meant for place j of any node (the
// ones for other nodes land in `relay`). Then pairwise across the nodes, between members of one
// place: each sends to each other node, in one message, the segments its node holds for it. Each
// segment crosses the network at most once, and a member sends nodes - 1 messages across nodes
// instead of n - per_node. `receive` ends as pairwise_all_to_all leaves it.
// `across` (>= 0): only the first `across` elements of each node's block cross (the deduplicated
// exchange's distinct tokens, core/model/token_exchange.hpp); the rest of the block in `receive`
// is left as it was. -1: the whole block.
// REQUIRES: as pairwise_all_to_all; per_node >= 1 divides group.size(); relay.count ==
// send.count; the three spans do not overlap.
void hierarchical_all_to_all(Fabric& group, int per_node, Span send, Span receive, Span relay,
                             std::int64_t across = -1);

// The members a node holds when `nodes` (the node of each member, in group order) runs node by
// node in runs of one length, each node once; 0 when it does not (the hierarchical exchange
// cannot run on such a group).
int members_per_node(const std::vector<int>& nodes);

}  // namespace scaleout::core
