// Ring all-reduce over all workers in rank order (reduce-scatter, then all-gather).
#include "core/strategies/ring_phases.hpp"
#include "core/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class Ring : public StrategyProgram {
 public:
  explicit Ring(int workers) : workers_(workers) {}

  void run(Fabric& fabric, Span bucket) override {
    RingGroup group;
    for (int r = 0; r < workers_; ++r) group.members.push_back(r);
    group.position = fabric.rank();
    ring_allreduce(fabric, group, bucket);
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
