#include "exec/rank_steps.hpp"

#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>
#include <signal.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "core/compute_rate.hpp"

namespace scaleout::exec {

std::shared_ptr<gloo::Context> connect(gloo::rendezvous::Store& store, const RankSetup& setup,
                                       std::chrono::milliseconds timeout) {
  gloo::transport::tcp::attr attr(setup.hostname.c_str());
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(setup.rank, setup.size);
  context->setTimeout(timeout);
  context->connectFullMesh(store, device);
  return context;
}

core::StepModel executed_model(const core::Plan& plan, const ExecOptions& options) {
  core::StepModel model = core::make_step_model(plan);
  // The model charges real FLOPs / efficiency. A CPU core runs the real FLOPs (times
  // compute_scale) at its kernel's rate; a GPU runs the charged operations as matrix products near
  // its peak, so that the phase lasts as the workload would at the plan's efficiency there. A
  // measured throughput is charged as the FLOPs it implies (core/compute_rate.hpp).
  double scale = options.compute_scale *
                 (options.backend == Backend::kCuda ? 1.0 : core::compute_efficiency(plan));
  model.forward_flops *= scale;
  model.backward_flops *= scale;
  return model;
}

StepObserver::StepObserver(const ExecOptions& options, std::shared_ptr<gloo::Context> sync,
                           bool worker, std::function<void()> fill_ahead,
                           std::function<long()> count_wrong, std::function<void()> corrupt_one)
    : options_(options),
      sync_(std::move(sync)),
      worker_(worker),
      fill_ahead_(std::move(fill_ahead)),
      count_wrong_(std::move(count_wrong)),
      corrupt_one_(std::move(corrupt_one)) {}

void StepObserver::barrier(const std::string& where) {
  try {
    gloo::BarrierAllToAll(sync_).run();
  } catch (const std::exception& e) {
    throw std::runtime_error("rank " + std::to_string(sync_->rank) + ": " + where +
                             ": not every rank arrived within " +
                             std::to_string(options_.timeout.count()) + " ms (" + e.what() + ")");
  }
}

void StepObserver::step_starting(int rank, int step) {
  if (rank == options_.kill_rank && step == options_.kill_step) ::kill(::getpid(), SIGKILL);
  if (rank == options_.stop_rank && step == options_.stop_step) ::raise(SIGSTOP);
  if (worker_) fill_ahead_();
  barrier("the barrier before step " + std::to_string(step));
}

void StepObserver::step_done(int rank, const core::StepTimes& t) {
  if (t.worker && rank == options_.corrupt_rank && t.step == options_.corrupt_step) corrupt_one_();
  // Checked once every rank is through: on a machine with fewer cores than ranks, a rank checking
  // early would take CPU from those still reducing.
  barrier("the barrier after step " + std::to_string(t.step));
  long wrong = t.worker ? count_wrong_() : 0;
  steps.push_back({{"start", t.start},
                   {"compute_end", t.compute_end},
                   {"comm_s", t.comm_s},
                   {"end", t.end},
                   {"wrong", wrong}});
}

void StepObserver::phase(int, const std::string& name, const char* category, double start,
                         double end) {
  if (!options_.trace_path.empty()) phases.push_back({name, category, start, end});
}

}  // namespace scaleout::exec
