#include "exec/model_parallel_rank.hpp"

#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>

#include <algorithm>

#include "core/model/compute_rate.hpp"
#include "core/model/model_parallel_work.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/programs/check_values.hpp"
#include "core/programs/strategies/model_parallel_training.hpp"
#include "core/results/model_parallel_outcome.hpp"
#include "exec/broken_schedule.hpp"
#include "exec/element_type.hpp"
#include "exec/gloo_fabric.hpp"
#include "exec/rank_steps.hpp"
#include "exec/stale_receive_fabric.hpp"

namespace scaleout::exec {

namespace {

// The checks on this rank's host buffer.
class BufferChecks : public SpanChecks {
 public:
  BufferChecks(GradientBuffer& data, const core::CheckValues& values, double limit)
      : SpanChecks(values, limit), data_(data) {}

 protected:
  std::vector<float> read(core::Span s) const override {
    std::vector<float> v(static_cast<std::size_t>(s.count));
    for (std::int64_t i = 0; i < s.count; ++i) v[i] = data_.get(s.begin + i);
    return v;
  }
  void write(core::Span s, const std::vector<float>& v) override {
    for (std::int64_t i = 0; i < s.count; ++i) data_.set(s.begin + i, v[i]);
  }

 private:
  GradientBuffer& data_;
};

}  // namespace

void run_model_parallel_rank(const core::Plan& plan, const ExecOptions& options,
                             const RankSetup& setup,
                             const std::function<void(const nlohmann::json&)>& finish) {
  core::RankPlan ranks = core::plan_ranks(plan);
  std::vector<int> rank_node;
  for (int r = 0; r < ranks.ranks(); ++r) rank_node.push_back(ranks.node_of_rank(r));
  auto training = training_program(plan, rank_node, options.faults);
  core::ModelParallelTraining& program = *training;
  // A CPU core runs the real FLOPs (the program charges them / efficiency) times compute_scale.
  program.set_compute_scale(executed_compute_scale(plan, options));
  core::CheckValues values(plan.training.workers, 1, plan.training.gradient_precision, plan.file);
  // A stale receive (a test's fault) lands in as many elements again past the program's.
  bool stale = setup.rank == options.faults.stale_receive_rank;
  GradientBuffer data(element_type(plan.training.gradient_precision),
                      program.buffer_elements() * (stale ? 2 : 1));
  gloo::rendezvous::FileStore store(setup.store_dir);
  gloo::rendezvous::PrefixStore ours("strategy", store);
  auto context = connect(ours, setup, options.timeout);
  gloo::rendezvous::PrefixStore sync_store("sync", store);
  auto sync = connect(sync_store, setup, options.timeout);
  GlooFabric fabric(context, data, values, options.timeout);
  BufferChecks checks(
      data, values,
      static_cast<double>(core::exact_integer_limit(plan.training.gradient_precision)));
  ModelParallelStepReports reports;
  gloo::BarrierAllToAll(sync).run();  // the ranks' clocks start together
  reports.origin = fabric.now();
  StaleReceiveFabric stale_fabric(fabric, program.buffer_elements());
  program.run(stale ? static_cast<core::Fabric&>(stale_fabric) : fabric, reports, &checks);
  gloo::BarrierAllToAll(sync).run();
  finish(
      {{"rank", setup.rank}, {"mp_steps", reports.steps}, {"baselines", nlohmann::json::array()}});
}

core::RunResult aggregate_model_parallel(const core::Plan& plan,
                                         const std::vector<nlohmann::json>& reports,
                                         const ExecOptions& options) {
  int steps = plan.training.steps;
  std::vector<double> start(steps, 1e300), end(steps, 0);
  std::vector<std::vector<core::ModelParallelStepTimes>> records;
  long wrong = 0;
  for (const auto& r : reports) {
    wrong += r.value("warm_up_wrong", 0L);  // the checked iterations outside the timed ones
    records.emplace_back();
    for (int s = 0; s < steps; ++s) {
      const auto& t = r["mp_steps"][s];
      start[s] = std::min(start[s], t["start"].get<double>());
      end[s] = std::max(end[s], t["end"].get<double>());
      wrong += t["wrong"].get<long>();
      core::ModelParallelStepTimes times;
      times.compute_s = t["compute"], times.tensor_s = t["tensor"], times.data_s = t["data"];
      times.expert_s = t.value("expert", 0.0);
      times.context_s = t.value("context", 0.0);
      records.back().push_back(times);
    }
  }
  double step = 0;
  for (int s = 0; s < steps; ++s) step += (end[s] - start[s]) / steps;
  core::ModelParallelPhases ph = core::phases_from_records(records, step);
  ph.data_bytes = core::model_parallel_work(plan).gradient_bytes;  // as the engines report it
  core::RunResult r =
      core::model_parallel_result(plan, options.backend == Backend::kCuda ? "cuda" : "cpu", ph);
  r.network_model = "measured";
  r.steps.clear();
  for (int s = 0; s < steps; ++s) r.steps.push_back({s, end[s] - start[s]});
  r.wrong = wrong;
  if (options.compute_scale != 1)
    r.warnings.push_back(
        "compute ran a share of the plan's FLOPs (--compute-scale): the compute "
        "time, tokens/s and MFU are not the workload's");
  return r;
}

}  // namespace scaleout::exec
