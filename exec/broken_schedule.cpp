#include "exec/broken_schedule.hpp"

#include <utility>

namespace scaleout::exec {

namespace {

class BrokenScheduleTraining : public core::ModelParallelTraining {
 public:
  BrokenScheduleTraining(const core::Plan& plan, std::vector<int> rank_node, bool receive_ahead,
                         int broken_rank)
      : ModelParallelTraining(plan, std::move(rank_node), receive_ahead),
        broken_rank_(broken_rank) {}

 protected:
  std::vector<core::PipeOp> schedule_of(int stage, int rank) const override {
    auto ops = ModelParallelTraining::schedule_of(stage, rank);
    bool second_is_forward = ops.size() > 1 && ops[1].kind == core::PipeOp::Kind::kForward;
    if (rank >= 0 && rank == broken_rank_ && second_is_forward) std::swap(ops[0], ops[1]);
    return ops;
  }

 private:
  int broken_rank_;
};

}  // namespace

std::unique_ptr<core::ModelParallelTraining> training_program(const core::Plan& plan,
                                                              std::vector<int> rank_node,
                                                              const Faults& faults,
                                                              bool receive_ahead) {
  if (faults.break_schedule_rank < 0)
    return std::make_unique<core::ModelParallelTraining>(plan, std::move(rank_node), receive_ahead);
  return std::make_unique<BrokenScheduleTraining>(plan, std::move(rank_node), receive_ahead,
                                                  faults.break_schedule_rank);
}

}  // namespace scaleout::exec
