// Rabenseifner's all-reduce over all workers (halving_doubling_phases.hpp). Partners at distance
// 1, 2, 4, ... first, so the large early exchanges stay inside a node. A worker count that is not
// a power of two folds the first 2*extra ranks pairwise beforehand.
#include "core/programs/strategies/halving_doubling_phases.hpp"
#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class HalvingDoubling : public StrategyProgram {
 public:
  explicit HalvingDoubling(int workers)
      : n_(workers), p_(halving_doubling_core(workers)), extra_(n_ - p_) {}

  void run(Fabric& fabric, Span bucket) override {
    halving_doubling_allreduce(
        fabric, n_, fabric.rank(), [](int i) { return i; }, bucket);
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
