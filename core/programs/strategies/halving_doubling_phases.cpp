#include "core/programs/strategies/halving_doubling_phases.hpp"

#include <vector>

#include "core/programs/strategy.hpp"

namespace scaleout::core {

int halving_doubling_core(int count) {
  int p = 1;
  while (p * 2 <= count) p *= 2;
  return p;
}

void halving_doubling_allreduce(Fabric& fabric, int count, int position,
                                const std::function<int(int)>& rank_of, Span span) {
  int p = halving_doubling_core(count), extra = count - p, r = position;
  // Fold: odd members below 2*extra hand their data to the even member below and sit out.
  if (r < 2 * extra) {
    if (r % 2 == 1) {
      fabric.wait_all({fabric.post_send(rank_of(r - 1), span)});
      fabric.wait_all({fabric.post_recv(rank_of(r - 1), span, Combine::kReplace)});
      return;
    }
    fabric.wait_all({fabric.post_recv(rank_of(r + 1), span, Combine::kAdd)});
  }
  int idx = r < 2 * extra ? r / 2 : r - extra;
  auto member_of = [&](int i) { return rank_of(i < extra ? 2 * i : i + extra); };

  std::vector<Span> parents;
  Span cur = span;
  for (int d = 1; d < p; d <<= 1) {
    int peer = member_of(idx ^ d);
    Span lower = split_part(cur, 2, 0), upper = split_part(cur, 2, 1);
    bool keep_lower = (idx & d) == 0;
    fabric.exchange(peer, peer,
                    {keep_lower ? upper : lower, keep_lower ? lower : upper, Combine::kAdd});
    parents.push_back(cur);
    cur = keep_lower ? lower : upper;
  }
  for (int d = p / 2; d >= 1; d >>= 1) {
    int peer = member_of(idx ^ d);
    Span parent = parents.back();
    parents.pop_back();
    Span lower = split_part(parent, 2, 0), upper = split_part(parent, 2, 1);
    Span other = cur == lower ? upper : lower;
    fabric.exchange(peer, peer, {cur, other, Combine::kReplace});
    cur = parent;
  }
  if (r < 2 * extra) fabric.wait_all({fabric.post_send(rank_of(r + 1), span)});
}

}  // namespace scaleout::core
