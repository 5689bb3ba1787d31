// Collective training as a program, written once for every engine: each step a worker computes
// forward, then backward, and hands each gradient bucket to the strategy as soon as backward has
// produced it (with overlap the rest of backward runs beside the exchange, on the fabric's compute
// stream); ranks that are not workers (a synchronous parameter server) run the strategy for every
// bucket. The simulator, the Gloo fabric and the NCCL fabric only supply the fabric and observe.
#pragma once

#include <string>

#include "core/model/step_model.hpp"
#include "core/programs/fabric.hpp"
#include "core/programs/strategy.hpp"
#include "core/reliability/slowdown.hpp"

namespace scaleout::core {

// One rank's times of one step (fabric.now()). Servers have no compute: compute_end == start.
struct StepTimes {
  int step = 0;
  bool worker = true;
  double start = 0;        // the step began (after the observer's step_starting)
  double compute_end = 0;  // forward and backward done
  double comm_s = 0;       // time spent exchanging buckets (their sum)
  double end = 0;          // the last bucket exchanged and the compute done
};

// What the program reports as it runs. Called on the rank's own thread or actor.
class CollectiveObserver {
 public:
  virtual ~CollectiveObserver() = default;
  // Before step `step` starts on `rank` (an executed engine lines its ranks up here).
  virtual void step_starting(int /*rank*/, int /*step*/) {}
  // `rank` is through step `times.step`.
  virtual void step_done(int rank, const StepTimes& times) = 0;
  // A phase of `rank` for the timeline: "forward", "backward", "exchange bucket 3".
  virtual void phase(int /*rank*/, const std::string& /*name*/, const char* /*category*/,
                     double /*start*/, double /*end*/) {}
};

class CollectiveTraining {
 public:
  // `model` gives the compute (FLOPs as the fabric's compute() takes them) and the buckets;
  // `program` the strategy; `slowdown` stretches a worker's compute per step (stragglers).
  CollectiveTraining(StrategyProgram& program, const StepModel& model, const Slowdown& slowdown,
                     int workers, int steps, bool overlap);

  // Runs every step on the fabric's rank.
  void run(Fabric& fabric, CollectiveObserver& observer) const;

 private:
  StepTimes worker_step(Fabric& fabric, CollectiveObserver& observer, int step) const;
  double overlapped_step(Fabric& fabric, CollectiveObserver& observer, double factor,
                         StepTimes& times) const;
  double exchange(Fabric& fabric, CollectiveObserver& observer, std::size_t bucket) const;
  void wait_for_cycle(Fabric& fabric, double backward_start, double ready) const;

  StrategyProgram& program_;
  StepModel model_;
  Slowdown slowdown_;
  int workers_, steps_;
  bool overlap_;
};

}  // namespace scaleout::core
