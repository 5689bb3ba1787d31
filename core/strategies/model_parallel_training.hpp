// Model-parallel training as a program, written once for every engine: each rank walks its
// pipeline stage's schedule (core/pipeline_schedule.hpp); a forward or backward of a chunk
// computes the chunk's layers and runs its tensor group's all-reduces (a ring on a group view of
// the fabric), receives its input from the neighbouring stage and sends its output on without
// waiting; once the schedule is through, the rank's data group exchanges the gradient with the
// plan's strategy (on another group view). Receives from each neighbour are posted at the start
// of an iteration, in the order that neighbour sends, so transfers flow while the stage computes.
#pragma once

#include <string>
#include <vector>

#include "core/fabric.hpp"
#include "core/model_parallel_work.hpp"
#include "core/pipeline_schedule.hpp"
#include "core/plan.hpp"
#include "core/strategy.hpp"

namespace scaleout::core {

// One rank's times of one iteration (fabric.now()).
struct ModelParallelStepTimes {
  int step = 0;
  double start = 0;
  double end = 0;
  double compute_s = 0;  // its layers' compute
  double tensor_s = 0;   // its tensor group's all-reduces
  double data_s = 0;     // its data group's gradient exchange
};

class ModelParallelObserver {
 public:
  virtual ~ModelParallelObserver() = default;
  virtual void step_done(int rank, const ModelParallelStepTimes& times) = 0;
  // A forward or backward of a micro-batch through a chunk, or the data group's exchange.
  virtual void phase(int /*rank*/, const std::string& /*name*/, const char* /*category*/,
                     double /*start*/, double /*end*/) {}
};

class ModelParallelTraining {
 public:
  // `rank_node`: the node of every rank (the data group's strategy places its ranks by node).
  // `receive_ahead`: post receives a window ahead of the schedule (a simulator's transfers then
  // flow while the stage computes); false posts each just before it is needed, as NCCL's grouped
  // calls need (a group waits for every receive in it).
  // REQUIRES: a validated plan with `parallelism:` and a collective strategy.
  ModelParallelTraining(const Plan& plan, std::vector<int> rank_node, bool receive_ahead = true);

  // Runs every iteration on the fabric's rank.
  void run(Fabric& fabric, ModelParallelObserver& observer) const;

  // Elements (of the fabric's element size) of one activation transfer and of the gradient shard.
  std::int64_t activation_elements() const { return activation_elements_; }
  std::int64_t gradient_elements() const { return gradient_elements_; }

 private:
  ModelParallelStepTimes iteration(Fabric& fabric, Fabric& tensor, Fabric& data,
                                   StrategyProgram* data_program, ModelParallelObserver& observer,
                                   int step) const;
  void run_op(Fabric& fabric, Fabric& tensor, const PipeOp& op, int stage,
              ModelParallelStepTimes& times) const;
  int destination(int stage, const PipeOp& op) const;

  Plan plan_;
  std::vector<int> rank_node_;
  bool receive_ahead_ = true;
  ModelParallelWork work_;
  int stages_ = 1, microbatches_ = 1, chunks_ = 1, layers_per_chunk_ = 1;
  std::int64_t activation_elements_ = 1, gradient_elements_ = 1;
};

}  // namespace scaleout::core
