// One rank of a model-parallel plan on a GPU: the model-parallel training program (the same one
// Gloo ranks and the simulator run) on the NCCL fabric, its stage transfers, tensor all-reduces
// and data-group exchange as grouped ncclSend/ncclRecv, its layers' compute as cuBLAS products.
// The checks read and write the device buffer through the host: every stage transfer carries the
// micro-batch its sender labelled, and the tensor and data groups' sums are exact.
#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>

#include <algorithm>

#include "core/parallel/rank_plan.hpp"
#include "core/programs/check_values.hpp"
#include "core/programs/strategies/model_parallel_training.hpp"
#include "exec/broken_schedule.hpp"
#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/nccl_fabric.hpp"
#include "exec/cuda/nccl_model_parallel.hpp"
#include "exec/cuda_backend.hpp"
#include "exec/element_type.hpp"
#include "exec/rank_steps.hpp"
#include "exec/schedule_fabric.hpp"

namespace scaleout::exec {

namespace {

// The checks on this rank's device buffer, through the host.
class DeviceChecks : public SpanChecks {
 public:
  DeviceChecks(NcclFabric& fabric, const core::CheckValues& values, double limit)
      : SpanChecks(values, limit), fabric_(fabric) {}

 protected:
  // Both wait for the exchanges queued before them (stream order on the communication stream).
  std::vector<float> read(core::Span s) const override {
    fabric_.synchronize();
    return download_floats(fabric_.type(), fabric_.at(s.begin), s.count, fabric_.comm_stream());
  }
  void write(core::Span s, const std::vector<float>& v) override {
    fabric_.synchronize();
    upload_floats(fabric_.type(), v, fabric_.at(s.begin), fabric_.comm_stream());
  }

 private:
  NcclFabric& fabric_;
};

// Runs `steps` iterations of the plan on the fabric, the ranks lined up first, with the checks
// when `checks` is given; returns the reports, times from the barrier's end (the ranks' fabrics
// started at different moments).
nlohmann::json iterations(const core::Plan& plan, const ExecOptions& options, NcclFabric& fabric,
                          const std::vector<int>& rank_node, int steps,
                          const std::shared_ptr<gloo::Context>& sync, DeviceChecks* checks) {
  core::Plan run = plan;
  run.training.steps = steps;
  // Receives are posted as the stages need them: a grouped NCCL call waits for all of its own.
  auto training = training_program(run, rank_node, options.faults, /*receive_ahead=*/false);
  core::ModelParallelTraining& program = *training;
  program.set_compute_scale(executed_compute_scale(run, options));
  ModelParallelStepReports reports;
  gloo::BarrierAllToAll(sync).run();
  reports.origin = fabric.now();
  program.run(fabric, reports, checks);
  return reports.steps;
}

}  // namespace

nlohmann::json train_model_parallel(const core::Plan& plan, const ExecOptions& options,
                                    const RankSetup& setup, ncclComm_t& comm,
                                    const std::shared_ptr<gloo::Context>& sync) {
  core::RankPlan ranks = core::plan_ranks(plan);
  std::vector<int> rank_node;
  for (int r = 0; r < ranks.ranks(); ++r) rank_node.push_back(ranks.node_of_rank(r));
  std::int64_t elements =
      core::ModelParallelTraining(plan, rank_node, /*receive_ahead=*/false).buffer_elements();
  core::CheckValues values(plan.training.workers, 1, plan.training.gradient_precision, plan.file);
  NcclFabric fabric(comm, element_type(plan.training.gradient_precision), elements, values,
                    options.timeout);
  DeviceChecks checks(
      fabric, values,
      static_cast<double>(core::exact_integer_limit(plan.training.gradient_precision)));
  // The checks copy every checked span through the host, far slower than the step on a GPU: one
  // checked iteration before the timed steps (it also pays NCCL's connection set-up, which a job
  // pays once) and one after, the timed steps unchecked between them. The Gloo ranks check every
  // step.
  nlohmann::json before = iterations(plan, options, fabric, rank_node, 1, sync, &checks);
  nlohmann::json steps =
      iterations(plan, options, fabric, rank_node, plan.training.steps, sync, nullptr);
  // Cleared first, so that a transfer that never lands cannot pass on the first iteration's data.
  SCALEOUT_CUDA_CHECK(cudaMemsetAsync(
      fabric.device_data(), 0, static_cast<std::size_t>(elements) * element_bytes(fabric.type()),
      fabric.comm_stream()));
  fabric.synchronize();
  nlohmann::json after = iterations(plan, options, fabric, rank_node, 1, sync, &checks);
  gloo::BarrierAllToAll(sync).run();
  return {{"rank", setup.rank},
          {"warm_up_wrong", before[0]["wrong"].get<long>() + after[0]["wrong"].get<long>()},
          {"mp_steps", steps},
          {"baselines", nlohmann::json::array()}};
}

}  // namespace scaleout::exec
