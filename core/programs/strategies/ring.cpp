// Ring all-reduce over all workers in rank order (reduce-scatter, then all-gather).
#include "core/programs/strategies/ring_phases.hpp"
#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class Ring : public StrategyProgram {
 public:
  explicit Ring(int workers) : workers_(workers) {}

  void run(Fabric& fabric, Span bucket) override {
    ring_allreduce(fabric, strided_ring(0, 1, workers_, fabric.rank()), bucket);
  }

  std::string describe() const override {
    return "ring: reduce-scatter + all-gather over all workers";
  }

 private:
  int workers_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_ring(const RankLayout& layout) {
  return std::make_unique<Ring>(layout.workers);
}

}  // namespace scaleout::core
