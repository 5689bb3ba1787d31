// The double binary tree across nodes: two spanning trees over the nodes, parents and children
// consistent, at most two children per node in each, and a node with children in one tree is a
// leaf in the other (so that no NIC carries more than two trees' flows each way).
#include "core/programs/strategies/double_tree.hpp"

#include <gtest/gtest.h>

namespace scaleout::core {
namespace {

// Levels from the root down to the deepest node, or -1 when some node never reaches the root.
int check_tree(int which, int m) {
  int deepest = 0;
  for (int x = 0; x < m; ++x) {
    TreeLinks t = double_tree_links(which, x, m);
    EXPECT_LE(t.children.size(), 2u);
    for (int c : t.children) {
      EXPECT_TRUE(c >= 0 && c < m && c != x);
      EXPECT_EQ(double_tree_links(which, c, m).parent, x) << "m=" << m << " node " << x;
    }
    int depth = 0;
    for (int y = x; double_tree_links(which, y, m).parent >= 0; ++depth) {
      y = double_tree_links(which, y, m).parent;
      if (depth > m) return -1;
    }
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

TEST(DoubleTree, TwoSpanningTreesWhoseInnerNodesAreTheOthersLeaves) {
  for (int m = 1; m <= 130; ++m) {
    int roots = 0;
    for (int which : {0, 1}) {
      int depth = check_tree(which, m);
      ASSERT_GE(depth, 0) << "tree " << which << " over " << m << " nodes has a cycle";
      int log2m = 0;
      while ((1 << log2m) < m) ++log2m;
      EXPECT_LE(depth, log2m + 1) << "m=" << m;
      for (int x = 0; x < m; ++x) roots += double_tree_links(which, x, m).parent < 0;
    }
    EXPECT_EQ(roots, 2) << "m=" << m;
    for (int x = 0; x < m; ++x) {
      auto a = double_tree_links(0, x, m).children.size();
      auto b = double_tree_links(1, x, m).children.size();
      EXPECT_LE(a + b, 2u) << "m=" << m << " node " << x;
    }
  }
}

}  // namespace
}  // namespace scaleout::core
