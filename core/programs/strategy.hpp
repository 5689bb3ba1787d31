// A distribution strategy is a program: the code one rank runs to combine the gradient of a bucket
// across ranks. It is written once against the Fabric and runs unchanged in every engine.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/programs/fabric.hpp"

namespace scaleout::core {

// Where the ranks sit, as far as strategies care: the node of each worker rank.
struct RankLayout {
  int workers = 0;
  int servers = 0;               // parameter-server ranks, numbered after the workers
  std::vector<int> worker_node;  // rank -> node index
};

class StrategyProgram {
 public:
  virtual ~StrategyProgram() = default;
  // Runs on every rank (workers and servers) for each gradient bucket, in the same bucket order.
  // On return every worker holds the sum over workers of `bucket` (all-reduce semantics).
  virtual void run(Fabric& fabric, Span bucket) = 0;
  // The same, telling `part` of the named parts of the exchange on this rank (a node's reduce
  // before a push, ...) with this rank's clock readings, for traces. The default has no parts.
  using PartFn = std::function<void(const char* name, double start_s, double end_s)>;
  virtual void run(Fabric& fabric, Span bucket, const PartFn& part) {
    (void)part;
    run(fabric, bucket);
  }
  // Number of phases of communication the program runs per bucket (for the analytic engine and
  // reports); informative only.
  virtual std::string describe() const = 0;
};

// Builds the program for `plan.strategy`. Throws InputError when the strategy cannot run on this
// layout (e.g. a hierarchical ring over nodes holding different numbers of workers).
std::unique_ptr<StrategyProgram> make_strategy(const Plan& plan, const RankLayout& layout);

// The torus grid used for `workers`: the plan's, or the most square X x Y with X >= Y.
std::array<int, 2> torus_grid(const Strategy& strategy, int workers);

// Splits `span` into `parts` contiguous pieces whose sizes differ by at most one element.
Span split_part(Span span, int parts, int index);

}  // namespace scaleout::core
