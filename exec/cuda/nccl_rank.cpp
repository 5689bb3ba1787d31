// One rank of a --backend cuda run: the device, the communicator (its id passes through the run's
// file store), the training loop on the NCCL fabric with the exact-sum check after every step, and
// NCCL's own all-reduce timed the same way as the baseline. Barriers and the id use Gloo over TCP
// beside NCCL, as the Gloo backend's ranks meet.
#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <cstring>

#include "core/codecs/compression_reference.hpp"
#include "core/model/step_model.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/plan/input_error.hpp"
#include "core/programs/check_values.hpp"
#include "core/programs/strategies/collective_training.hpp"
#include "core/reliability/slowdown.hpp"
#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/gpu_backend.hpp"
#include "exec/cuda/nccl_baselines.hpp"
#include "exec/cuda/nccl_fabric.hpp"
#include "exec/cuda/nccl_model_parallel.hpp"
#include "exec/rank_steps.hpp"
#include "exec/schedule_fabric.hpp"

namespace scaleout::exec {

namespace {

using Sync = std::shared_ptr<gloo::Context>;

// Rank 0 makes the communicator's id and writes it to the store; the others read it.
ncclComm_t open_communicator(gloo::rendezvous::Store& store, const RankSetup& setup) {
  ncclUniqueId id;
  const std::string key = "nccl-unique-id";
  if (setup.rank == 0) {
    SCALEOUT_NCCL_CHECK(ncclGetUniqueId(&id));
    store.set(key, std::vector<char>(id.internal, id.internal + sizeof id.internal));
  } else {
    std::vector<char> bytes = store.get(key);
    if (bytes.size() != sizeof id.internal) throw CudaError("the store holds a malformed NCCL id");
    std::memcpy(id.internal, bytes.data(), sizeof id.internal);
  }
  ncclComm_t comm = nullptr;
  SCALEOUT_NCCL_CHECK(ncclCommInitRank(&comm, setup.size, id, setup.rank));
  return comm;
}

// The check after each step: the exact sums or, with compression, what every worker's compressor
// emitted combined (core/codecs/compression_reference.hpp), one step after the other (the warm-up
// step included). The GPU's PowerSGD sums in cuBLAS's order, not the host's: it is held to 1e-3 of
// the largest element; the other compressors compute the host's bits and are held to them.
std::function<long()> step_check(const core::Plan& plan, const core::StepModel& model,
                                 const NcclFabric& fabric, const core::CheckValues& values) {
  const core::Compression& c = plan.training.compression;
  if (!c.on()) return [&fabric, &values] { return count_wrong(fabric.download(), values); };
  auto reference = std::make_shared<core::CompressionReference>(plan, model, values);
  double tolerance = c.kind == core::CompressionKind::kPowersgd ? 1e-3 : 0.0;
  return [&fabric, reference, tolerance] {
    return count_differing(fabric.download(), reference->next_step(), tolerance);
  };
}

// Runs the plan's steps and NCCL's baselines on an open communicator; returns the rank's report.
nlohmann::json train(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
                     ncclComm_t& comm, const Sync& sync) {
  int workers = plan.training.workers;
  core::RankPlan ranks = core::plan_ranks(plan);
  core::CheckValues values(workers, 1, plan.training.gradient_precision, plan.file);
  core::StepModel model = executed_model(plan, options);
  NcclFabric fabric(comm, element_type(plan.training.gradient_precision), model.elements, values,
                    options.timeout, compressed_scratch_words(plan, model));
  auto program = core::make_strategy(plan, ranks.layout);
  std::function<long()> check = step_check(plan, model, fabric, values);
  auto observer_for = [&](const ExecOptions& o) {
    return StepObserver(
        o, sync, setup.rank < workers, [&fabric] { fabric.fill_gradient_ahead(); }, check,
        [&fabric] { fabric.corrupt_first_element(); });
  };
  auto train_steps = [&](StepObserver& observer, int steps) {
    core::CollectiveTraining(*program, model, core::Slowdown(plan.stragglers), workers, steps,
                             plan.training.overlap)
        .run(fabric, observer);
  };
  // One step first, checked but not reported (as nccl-tests' warm-up iterations): NCCL connects
  // a pair of ranks at their first send and cuBLAS loads a product's kernel at its first use,
  // costs a job pays once rather than every step.
  ExecOptions quiet = options;
  quiet.faults.kill_rank = quiet.faults.corrupt_rank = -1;
  quiet.trace_path.clear();
  StepObserver warm_up = observer_for(quiet);
  train_steps(warm_up, 1);
  StepObserver observer = observer_for(options);
  train_steps(observer, plan.training.steps);
  nlohmann::json baselines = nlohmann::json::array();
  if (options.baselines && ranks.layout.servers == 0) {
    NcclBaselines nccl(
        fabric, comm, [&sync] { gloo::BarrierAllToAll(sync).run(); }, values, model.elements,
        plan.training.steps);
    for (bool in_place : {false, true}) baselines.push_back(nccl.all_reduce(in_place));
    for (const char* algorithm : {"Ring", "Tree"})
      baselines.push_back(nccl.all_reduce_with(algorithm));
    if (plan.strategy.kind == core::StrategyKind::kTorus2d)
      baselines.push_back(nccl.torus2d(core::torus_grid(plan.strategy, workers)[0]));
  }
  return {{"rank", setup.rank},
          {"warm_up_wrong", warm_up.steps[0]["wrong"]},
          {"steps", observer.steps},
          {"phases", observer.phases},
          {"baselines", baselines}};
}

}  // namespace

void gpu::run_rank(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
                   const std::function<void(const nlohmann::json&)>& finish) {
  exec::check_nccl_schedulable(plan);
  int devices = 0;
  SCALEOUT_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices == 0) throw CudaError("rank " + std::to_string(setup.rank) + ": no GPU");
  SCALEOUT_CUDA_CHECK(cudaSetDevice(setup.rank % devices));

  gloo::rendezvous::FileStore store(setup.store_dir);
  gloo::rendezvous::PrefixStore sync_store("sync", store);
  Sync sync = connect(sync_store, setup, options.timeout);
  gloo::rendezvous::PrefixStore nccl_store("nccl", store);
  ncclComm_t comm = open_communicator(nccl_store, setup);
  nlohmann::json report;
  try {
    report = plan.parallelism ? train_model_parallel(plan, options, setup, comm, sync)
                              : train(plan, options, setup, comm, sync);
  } catch (...) {
    if (comm) ncclCommAbort(comm);  // null: the fabric aborted it already
    throw;
  }
  gloo::BarrierAllToAll(sync).run();
  SCALEOUT_NCCL_CHECK(ncclCommDestroy(comm));
  finish(report);
}

}  // namespace scaleout::exec
