// The double binary tree (as NCCL builds across nodes): two binary trees over the same m nodes
// such that a node with children in one tree is a leaf in the other, so that every node sends
// and receives about the same in all, and each tree carries half of the data.
#pragma once

#include <vector>

namespace scaleout::core {

struct TreeLinks {
  int parent = -1;            // -1: the root
  std::vector<int> children;  // at most two
};

// Position `p`'s links in the in-order binary tree over positions 0..m-1: odd positions are
// leaves, position 0 is the root with one child (the largest power of two below m).
TreeLinks binary_tree_links(int p, int m);

// Node `node`'s links (node indices) in tree `which` (0 or 1) of the double binary tree over m
// nodes. Tree 0 is binary_tree_links over the nodes; tree 1 the same tree over the nodes mirrored
// (m even) or shifted by one (m odd), so that tree 0's leaves (odd nodes) are tree 1's inner nodes.
TreeLinks double_tree_links(int which, int node, int m);

}  // namespace scaleout::core
