#include "core/programs/strategies/ps_training.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/programs/strategies/ps_protocol.hpp"
#include "core/programs/strategies/ps_server.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

PsRules ps_rules(const Plan& plan) {
  const Strategy& s = plan.strategy;
  int n = plan.training.workers;
  PsRules r;
  if (s.ps_mode == PsMode::kAsync) {
    r.aggregate = 1;
    r.staleness_bound = s.staleness_bound;
  } else if (s.softsync > 0) {
    // n-softsync (Zhang et al. 2016): update after workers/n gradients, whatever their version.
    r.aggregate = std::max(1, static_cast<int>(std::lround(static_cast<double>(n) / s.softsync)));
    r.blocking_pulls = true;
  } else {
    r.aggregate = s.replicas_to_aggregate > 0 ? s.replicas_to_aggregate : n;
    r.drop_stale = true;
    r.blocking_pulls = true;
  }
  return r;
}

std::int64_t ps_last_version(const Plan& plan) {
  PsRules r = ps_rules(plan);
  if (r.drop_stale) return plan.training.steps;
  return std::max<std::int64_t>(
      1, static_cast<std::int64_t>(plan.training.workers) * plan.training.steps / r.aggregate);
}

bool uses_ps_training(const Plan& plan) {
  const Strategy& s = plan.strategy;
  return s.kind == StrategyKind::kPs &&
         (s.ps_mode == PsMode::kAsync || s.softsync > 0 ||
          (s.replicas_to_aggregate > 0 && s.replicas_to_aggregate < plan.training.workers));
}

PsTraining::PsTraining(const Plan& plan, const StepModel& model, int workers, int servers,
                       std::vector<int> leave_step, std::vector<double> leave_time)
    : rules_(ps_rules(plan)),
      model_(model),
      slowdown_(plan.stragglers),
      workers_(workers),
      servers_(servers),
      steps_(plan.training.steps),
      leave_step_(std::move(leave_step)),
      leave_time_(std::move(leave_time)),
      last_version_(ps_last_version(plan)),
      compensation_(compensation_cost(plan)) {
  start_offset_ = model_.compute_flops() / plan.cluster.device.flops;
  leave_step_.resize(workers_, -1);
  leave_time_.resize(workers_, -1);
}

Span PsTraining::shard(int j) const { return split_part(Span{0, model_.elements}, servers_, j); }

void PsTraining::run(Fabric& fabric, TrainingObserver& observer) const {
  if (fabric.rank() < workers_) {
    worker(fabric, observer);
  } else {
    server(fabric, observer);
  }
}

void PsTraining::worker(Fabric& fabric, TrainingObserver& observer) const {
  int w = fabric.rank();
  std::vector<std::int64_t> pulled(servers_, 0);
  std::vector<bool> stopped_by(servers_, false);
  // Asynchronous workers start one after another, spread over one step's compute, as workers of a
  // real job do. Identical workers started at the same instant would stay in lockstep forever.
  Device& device = fabric.device();
  if (!rules_.blocking_pulls) device.idle(start_offset_ * w / workers_);
  Mailbox& mailbox = fabric.mailbox();
  // Synchronous modes run until the servers applied their last version, however many local steps
  // that takes a worker (a straggler may do fewer); asynchronous workers each do `steps`.
  int local_steps = rules_.blocking_pulls ? std::numeric_limits<int>::max() : steps_;
  // The first pull is a message of its own; every later one rides on the previous push.
  if (leave_step_[w] == 0) {
    for (int j = 0; j < servers_; ++j) mailbox.send_message(workers_ + j, ps::leave(w, steps_));
    observer.left(w, 0, fabric.now());
    return;
  }
  for (int j = 0; j < servers_; ++j) mailbox.send_message(workers_ + j, ps::pull(w, 0));
  int asked = servers_;
  for (int step = 0; step < local_steps; ++step) {
    double start = fabric.now();
    fabric.mark_step(step);
    // A shard that reached its last version answers STOP and is left out from then on; the worker
    // goes on for the others, so that every shard gets the gradients its versions need.
    for (int i = 0; i < asked; ++i) {
      Message m = mailbox.receive_message();
      if (ps::kind_of(m) == ps::Kind::kStop) {
        stopped_by[m.from - workers_] = true;
        continue;
      }
      mailbox.accept_data(Combine::kReplace);
      pulled[m.from - workers_] = ps::version_of(m);
    }
    if (std::all_of(stopped_by.begin(), stopped_by.end(), [](bool b) { return b; })) return;
    double pull_end = fabric.now();
    device.compute(model_.compute_flops() * slowdown_.factor(w, step));
    device.produce_gradient(Span{0, model_.elements});
    double compute_end = fabric.now();
    // Whether this worker goes on is known before it pushes (its node may fail before the next
    // step).
    bool leaving = (leave_step_[w] >= 0 && step + 1 >= leave_step_[w]) ||
                   (leave_time_[w] >= 0 && fabric.now() >= leave_time_[w]);
    bool more = step + 1 < local_steps && !leaving;
    asked = 0;
    for (int j = 0; j < servers_; ++j)
      if (!stopped_by[j]) {
        mailbox.send_message(workers_ + j, ps::push(w, pulled[j], step, shard(j), more));
        asked += more;
      }
    observer.worker_step(w, step, start, pull_end, compute_end, fabric.now());
    if (leaving && step + 1 < local_steps) {
      for (int j = 0; j < servers_; ++j)
        mailbox.send_message(workers_ + j, ps::leave(w, steps_ - step - 1));
      observer.left(w, step + 1, fabric.now());
      return;
    }
  }
}

void PsTraining::server(Fabric& fabric, TrainingObserver& observer) const {
  int j = fabric.rank() - workers_;
  ServerShard server(fabric, observer, rules_, workers_, j, shard(j),
                     static_cast<long>(workers_) * steps_, last_version_);
  if (compensation_) server.compensate(*compensation_, model_.elements, shard(0).count);
  server.run();
}

}  // namespace scaleout::core
