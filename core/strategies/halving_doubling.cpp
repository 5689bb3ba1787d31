// Rabenseifner's all-reduce: reduce-scatter by recursive halving, all-gather by recursive doubling.
// Partners at distance 1, 2, 4, ... first, so the large early exchanges stay inside a node. A
// worker count that is not a power of two folds the first 2*extra ranks pairwise beforehand.
#include "core/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class HalvingDoubling : public StrategyProgram {
 public:
  explicit HalvingDoubling(int workers) : n_(workers) {
    p_ = 1;
    while (p_ * 2 <= n_) p_ *= 2;
    extra_ = n_ - p_;
  }

  void run(Fabric& fabric, Span bucket) override {
    int r = fabric.rank();
    // Fold: odd ranks below 2*extra hand their data to the even rank below and sit out.
    if (r < 2 * extra_) {
      if (r % 2 == 1) {
        fabric.wait_all({fabric.post_send(r - 1, bucket)});
        fabric.wait_all({fabric.post_recv(r - 1, bucket, Combine::kReplace)});
        return;
      }
      fabric.wait_all({fabric.post_recv(r + 1, bucket, Combine::kAdd)});
    }
    int idx = r < 2 * extra_ ? r / 2 : r - extra_;
    auto rank_of = [&](int i) { return i < extra_ ? 2 * i : i + extra_; };

    std::vector<Span> parents;
    Span cur = bucket;
    for (int d = 1; d < p_; d <<= 1) {
      int peer = rank_of(idx ^ d);
      Span lower = split_part(cur, 2, 0), upper = split_part(cur, 2, 1);
      bool keep_lower = (idx & d) == 0;
      fabric.exchange(peer, peer,
                      {keep_lower ? upper : lower, keep_lower ? lower : upper, Combine::kAdd});
      parents.push_back(cur);
      cur = keep_lower ? lower : upper;
    }
    for (int d = p_ / 2; d >= 1; d >>= 1) {
      int peer = rank_of(idx ^ d);
      Span parent = parents.back();
      parents.pop_back();
      Span lower = split_part(parent, 2, 0), upper = split_part(parent, 2, 1);
      Span other = cur == lower ? upper : lower;
      fabric.exchange(peer, peer, {cur, other, Combine::kReplace});
      cur = parent;
    }
    if (r < 2 * extra_) fabric.wait_all({fabric.post_send(r + 1, bucket)});
  }

  std::string describe() const override {
    return "halving-doubling over " + std::to_string(p_) + " ranks" +
           (extra_ ? " (+" + std::to_string(extra_) + " folded)" : "");
  }

 private:
  int n_, p_, extra_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_halving_doubling(const RankLayout& layout) {
  return std::make_unique<HalvingDoubling>(layout.workers);
}

}  // namespace scaleout::core
