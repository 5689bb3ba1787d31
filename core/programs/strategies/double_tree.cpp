#include "core/programs/strategies/double_tree.hpp"

#include <cassert>

namespace scaleout::core {

namespace {

int lowest_bit(int p) { return p & -p; }

int largest_power_of_two_below(int m) {
  int p = 1;
  while (p * 2 < m) p *= 2;
  return p;
}

}  // namespace

// A position p > 0 with lowest set bit l sits l levels above the leaves: its left child is
// p - l/2, its right child p + l/2 (or, past the end, the nearest p + l/4, p + l/8, ... inside).
// Its parent is p - l when the bit above l is set (p is a right child), else p + l, or p - l
// when p + l is past the end (the parent then reached p as its right child).
TreeLinks binary_tree_links(int p, int m) {
  assert(p >= 0 && p < m);
  TreeLinks t;
  if (p == 0) {
    if (m > 1) t.children.push_back(largest_power_of_two_below(m));
    return t;
  }
  int l = lowest_bit(p);
  t.parent = (p & (2 * l)) || p + l >= m ? p - l : p + l;
  if (l > 1) {
    t.children.push_back(p - l / 2);
    for (int h = l / 2; h >= 1; h /= 2)
      if (p + h < m) {
        t.children.push_back(p + h);
        break;
      }
  }
  return t;
}

TreeLinks double_tree_links(int which, int node, int m) {
  if (which == 0) return binary_tree_links(node, m);
  bool mirror = m % 2 == 0;
  auto to_position = [&](int n) { return mirror ? m - 1 - n : (n + m - 1) % m; };
  auto to_node = [&](int p) { return mirror ? m - 1 - p : (p + 1) % m; };
  TreeLinks t = binary_tree_links(to_position(node), m);
  if (t.parent >= 0) t.parent = to_node(t.parent);
  for (int& c : t.children) c = to_node(c);
  return t;
}

}  // namespace scaleout::core
