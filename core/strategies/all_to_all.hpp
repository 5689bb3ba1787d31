// All-to-all by pairwise exchange over a group (a group view of the fabric): the token dispatch
// and combine of expert parallelism, written once for every engine.
#pragma once

#include "core/fabric.hpp"

namespace scaleout::core {

// `send` and `receive` each hold group.size() equal segments, one a member. In step k (1 to n-1)
// a member sends its segment for the member k after it and receives, into that member's segment,
// what the member k before it holds for it; its own segment stays where it is. Each member sends
// (n-1)/n of `send`. REQUIRES: send.count == receive.count, a multiple of the group's size.
void pairwise_all_to_all(Fabric& group, Span send, Span receive);

}  // namespace scaleout::core
