#include "core/programs/strategies/collective_training.hpp"

#include <vector>

namespace scaleout::core {

CollectiveTraining::CollectiveTraining(StrategyProgram& program, const StepModel& model,
                                       const Slowdown& slowdown, int workers, int steps,
                                       bool overlap)
    : program_(program),
      model_(model),
      slowdown_(slowdown),
      workers_(workers),
      steps_(steps),
      overlap_(overlap) {}

void CollectiveTraining::run(Fabric& fabric, CollectiveObserver& observer) const {
  int rank = fabric.rank();
  for (int s = 0; s < steps_; ++s) {
    fabric.mark_step(s);
    observer.step_starting(rank, s);
    if (rank < workers_) {
      observer.step_done(rank, worker_step(fabric, observer, s));
      continue;
    }
    StepTimes t{s, false, fabric.now(), 0, 0, 0};
    t.compute_end = t.start;
    for (std::size_t b = 0; b < model_.buckets.size(); ++b)
      t.comm_s += exchange(fabric, observer, b);
    t.end = fabric.now();
    observer.step_done(rank, t);
  }
}

// Without overlap: forward, backward, then every bucket's exchange.
StepTimes CollectiveTraining::worker_step(Fabric& fabric, CollectiveObserver& observer,
                                          int step) const {
  int rank = fabric.rank();
  double f = slowdown_.factor(rank, step);
  StepTimes t{step, true, fabric.now(), 0, 0, 0};
  double forward_end = 0;
  if (overlap_) {
    forward_end = overlapped_step(fabric, observer, f, t);
  } else {
    Device& device = fabric.device();
    device.compute(model_.forward_flops * f);
    forward_end = fabric.now();
    device.compute(model_.backward_flops * f);
    t.compute_end = fabric.now();
    for (std::size_t b = 0; b < model_.buckets.size(); ++b) {
      device.produce_gradient(model_.buckets[b].span);
      t.comm_s += exchange(fabric, observer, b);
    }
  }
  t.end = fabric.now();
  observer.phase(rank, "forward", "compute", t.start, forward_end);
  observer.phase(rank, "backward", "compute", forward_end, t.compute_end);
  return t;
}

// With overlap: forward and backward go to the compute stream in slices that end where a bucket
// is ready; each bucket is exchanged as soon as its slice is done, while the next slices run.
// Returns when forward ended; sets t.compute_end and t.comm_s.
double CollectiveTraining::overlapped_step(Fabric& fabric, CollectiveObserver& observer, double f,
                                           StepTimes& t) const {
  Device& device = fabric.device();
  Device::ComputeTicket forward = device.compute_async(model_.forward_flops * f), last = forward;
  std::vector<Device::ComputeTicket> ready;  // per bucket: the slice after which it is ready
  double done = 0;
  for (const auto& bucket : model_.buckets) {
    double slice = (bucket.ready_fraction - done) * model_.backward_flops * f;
    if (slice > 0) last = device.compute_async(slice);
    done = bucket.ready_fraction;
    ready.push_back(last);
  }
  if (done < 1) last = device.compute_async((1 - done) * model_.backward_flops * f);
  double forward_end = device.wait_compute(forward), waited_at = forward_end;
  Device::ComputeTicket waited = forward;
  for (std::size_t b = 0; b < model_.buckets.size(); ++b) {
    if (ready[b] != waited) waited_at = device.wait_compute(waited = ready[b]);
    if (model_.cycle_s > 0) wait_for_cycle(fabric, forward_end, waited_at);
    device.produce_gradient(model_.buckets[b].span);
    double beside_from = fabric.now();
    t.comm_s += exchange(fabric, observer, b);
    device.communicated_beside(beside_from);  // the backward still running is slowed
  }
  t.compute_end = last != waited ? device.wait_compute(last) : waited_at;
  return forward_end;
}

// Horovod's cycle: a bucket ready at `ready` leaves at the next cycle boundary counted from the
// start of backward (`backward_start`), or at once when an exchange already took it past that.
void CollectiveTraining::wait_for_cycle(Fabric& fabric, double backward_start, double ready) const {
  double boundary = backward_start + model_.leaves_at(ready - backward_start);
  double now = fabric.now();
  if (boundary > now) fabric.device().idle(boundary - now);
}

double CollectiveTraining::exchange(Fabric& fabric, CollectiveObserver& observer,
                                    std::size_t bucket) const {
  double t0 = fabric.now();
  program_.run(fabric, model_.buckets[bucket].span,
               [&](const char* name, double start, double end) {
                 observer.phase(fabric.rank(), name, "comm", start, end);
               });
  fabric.end_bucket();
  double t1 = fabric.now();
  observer.phase(fabric.rank(), "exchange bucket " + std::to_string(bucket), "comm", t0, t1);
  return t1 - t0;
}

}  // namespace scaleout::core
