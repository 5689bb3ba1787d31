// What an expert-parallel all-to-all moves beyond its token copies: the element size of the
// tokens sent to the experts, and, when each token goes to a node once (the deduplicated
// exchange, DeepEP's), the share of a node's copies that crosses the network. Both engines'
// costs and the training program's buffers take them from here.
#pragma once

#include "core/plan/plan.hpp"

namespace scaleout::core {

// Bytes an element of the tokens sent to the experts takes (the dispatch, and backward the
// combine's gradient): 16-bit activations, or FP8 with a 32-bit scale per 128 elements
// (DeepSeek-V3 technical report, section 3.3.2's 1 x 128 tiles: 1 + 4 / 128).
double to_experts_element_bytes(const Parallelism& p);

// Of the token copies a rank sends to one node of its expert group in one all-to-all, the share
// that are distinct tokens: the chance that a token goes to that node at all, over the copies it
// sends there (top_k / nodes). The experts lie in order, experts / nodes on each of the group's
// `nodes` nodes; a token's top_k are drawn evenly among the experts open to it: those of its
// group_top_k groups, the groups drawn evenly, or every expert without groups (real routers
// choose by affinity; evenly is the balanced router's expectation). 1 on one node.
// Throws std::invalid_argument when the groups neither divide nor are divided by the nodes.
double node_distinct_share(const MoeShape& m, int nodes);

}  // namespace scaleout::core
