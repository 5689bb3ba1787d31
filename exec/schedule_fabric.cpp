#include "exec/schedule_fabric.hpp"

#include <algorithm>
#include <exception>
#include <sstream>
#include <thread>

#include "core/model/step_model.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/plan/input_error.hpp"
#include "core/programs/strategies/collective_training.hpp"
#include "core/programs/strategies/model_parallel_training.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "core/reliability/slowdown.hpp"

namespace scaleout::exec {

using namespace scaleout::core;

namespace {

class QuietObserver : public CollectiveObserver {
 public:
  void step_done(int, const StepTimes&) override {}
};

// One rank's groups: its own program, as each executed rank builds its own.
std::vector<OpGroup> schedule_rank(const Plan& plan, const RankPlan& ranks, const StepModel& model,
                                   int rank) {
  auto program = make_strategy(plan, ranks.layout);
  ScheduleFabric fabric(rank, ranks.layout.workers + ranks.layout.servers);
  QuietObserver observer;
  CollectiveTraining(*program, model, Slowdown(plan.stragglers), ranks.layout.workers, 1,
                     plan.training.overlap)
      .run(fabric, observer);
  return fabric.groups();
}

class QuietModelParallel : public ModelParallelObserver {
 public:
  void step_done(int, const ModelParallelStepTimes&) override {}
};

// A model-parallel rank's groups for one iteration: receives posted when needed, as NCCL's
// groups require.
std::vector<OpGroup> schedule_model_parallel_rank(const Plan& plan, const RankPlan& ranks,
                                                  int rank) {
  Plan one = plan;
  one.training.steps = 1;
  std::vector<int> rank_node;
  for (int r = 0; r < ranks.ranks(); ++r) rank_node.push_back(ranks.node_of_rank(r));
  ScheduleFabric fabric(rank, ranks.ranks());
  QuietModelParallel observer;
  ModelParallelTraining(one, rank_node, /*receive_ahead=*/false).run(fabric, observer);
  return fabric.groups();
}

}  // namespace

void check_nccl_schedulable(const Plan& plan) {
  if (plan.parallelism && plan.strategy.kind == StrategyKind::kPs)
    throw InputError(plan.file, plan.strategy.line, "strategy",
                     "a model-parallel plan's data group exchanges with collective strategies on "
                     "GPUs; a parameter server has no NCCL schedule here");
  if (plan.parallelism && plan.parallelism->schedule == PipelineScheduleKind::kInterleaved)
    throw InputError(plan.file, plan.parallelism->schedule_line, "parallelism.schedule",
                     "the interleaved schedule's NCCL calls are not generated yet: posted as the "
                     "stages need them, its forwards that wrap round to the first stage would "
                     "wait on each other under NCCL's grouped calls (gpipe and 1f1b are)");
  if (uses_ps_training(plan))
    throw InputError(
        plan.file, 0, "strategy",
        "asynchronous/backup/softsync/bounded parameter servers exchange messages over TCP "
        "with CPU servers, not NCCL calls: there is no NCCL schedule to print (run it without "
        "--dry-run)");
}

std::vector<std::vector<OpGroup>> schedule_plan(const Plan& plan) {
  check_nccl_schedulable(plan);
  RankPlan ranks = plan_ranks(plan);
  StepModel model = make_step_model(plan);
  int size = ranks.layout.workers + ranks.layout.servers;
  std::vector<std::vector<OpGroup>> out(size);
  std::vector<std::exception_ptr> errors(size);
  // Ranks never wait on each other here (nothing moves), so a few threads serve any rank count.
  const int thread_count = std::min(size, 32);
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t)
    threads.emplace_back([&, t] {
      for (int r = t; r < size; r += thread_count) {
        try {
          out[r] = plan.parallelism ? schedule_model_parallel_rank(plan, ranks, r)
                                    : schedule_rank(plan, ranks, model, r);
        } catch (...) {
          errors[r] = std::current_exception();
        }
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

std::string format_schedule(const std::vector<std::vector<OpGroup>>& ranks) {
  std::ostringstream out;
  for (std::size_t r = 0; r < ranks.size(); ++r)
    for (std::size_t g = 0; g < ranks[r].size(); ++g) {
      out << "rank " << r << " group " << g << ":";
      for (const PointOp& op : ranks[r][g]) out << ' ' << describe(op);
      out << '\n';
    }
  return out.str();
}

}  // namespace scaleout::exec
