#include "core/strategies/ps_training.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <limits>
#include <set>

#include "core/strategy.hpp"

namespace scaleout::core {

namespace {
// kPushPull: a push that also asks for the next step's parameters (one message instead of two).
enum Kind { kPull = 1, kParams = 2, kPush = 3, kLeave = 4, kStop = 5, kPushPull = 6 };
}  // namespace

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
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(plan.training.workers) * plan.training.steps / r.aggregate);
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
      last_version_(ps_last_version(plan)) {
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
  if (!rules_.blocking_pulls) fabric.idle(start_offset_ * w / workers_);
  // Synchronous modes run until the servers applied their last version, however many local steps
  // that takes a worker (a straggler may do fewer); asynchronous workers each do `steps`.
  int local_steps = rules_.blocking_pulls ? std::numeric_limits<int>::max() : steps_;
  // The first pull is a message of its own; every later one rides on the previous push.
  if (leave_step_[w] == 0) {
    for (int j = 0; j < servers_; ++j) fabric.send_message(workers_ + j, {w, kLeave, steps_, 0, {}});
    observer.left(w, 0, fabric.now());
    return;
  }
  for (int j = 0; j < servers_; ++j) fabric.send_message(workers_ + j, {w, kPull, 0, 0, {}});
  int asked = servers_;
  for (int step = 0; step < local_steps; ++step) {
    double start = fabric.now();
    fabric.mark_step(step);
    // A shard that reached its last version answers STOP and is left out from then on; the worker
    // goes on for the others, so that every shard gets the gradients its versions need.
    for (int i = 0; i < asked; ++i) {
      Message m = fabric.receive_message();
      if (m.kind == kStop) {
        stopped_by[m.from - workers_] = true;
        continue;
      }
      fabric.accept_data(Combine::kReplace);
      pulled[m.from - workers_] = m.a;
    }
    if (std::all_of(stopped_by.begin(), stopped_by.end(), [](bool b) { return b; })) return;
    double pull_end = fabric.now();
    fabric.compute(model_.compute_flops() * slowdown_.factor(w, step));
    double compute_end = fabric.now();
    // Whether this worker goes on is known before it pushes (its node may fail before the next step).
    bool leaving = (leave_step_[w] >= 0 && step + 1 >= leave_step_[w]) ||
                   (leave_time_[w] >= 0 && fabric.now() >= leave_time_[w]);
    bool more = step + 1 < local_steps && !leaving;
    asked = 0;
    for (int j = 0; j < servers_; ++j)
      if (!stopped_by[j]) {
        fabric.send_message(workers_ + j, {w, more ? kPushPull : kPush, pulled[j], step, shard(j)});
        asked += more;
      }
    observer.worker_step(w, step, start, pull_end, compute_end, fabric.now());
    if (leaving && step + 1 < local_steps) {
      for (int j = 0; j < servers_; ++j) fabric.send_message(workers_ + j, {w, kLeave, steps_ - step - 1, 0, {}});
      observer.left(w, step + 1, fabric.now());
      return;
    }
  }
}

void PsTraining::server(Fabric& fabric, TrainingObserver& observer) const {
  int j = fabric.rank() - workers_;
  Span mine = shard(j);
  std::int64_t version = 0;
  int accepted_in_version = 0;
  long expected = static_cast<long>(workers_) * steps_, received = 0;
  std::vector<std::int64_t> last_pulled(workers_, -1);
  std::map<int, std::int64_t> in_flight;  // worker -> version it pulled
  std::multiset<std::int64_t> in_flight_versions;
  std::vector<long> pushes_from(workers_, 0);
  std::deque<std::pair<int, long>> deferred;  // (worker, its step)

  // A worker's pull is served after its previous push was applied (one connection keeps order).
  auto can_serve = [&](int w, long step) {
    if (pushes_from[w] < step) return false;
    if (rules_.blocking_pulls && last_pulled[w] >= version) return false;
    if (rules_.staleness_bound >= 0 && !in_flight_versions.empty()) {
      // After this pull, every gradient in flight could still see all the others applied first.
      long n = static_cast<long>(in_flight_versions.size()) + 1;
      if (version + (n - 1) - *in_flight_versions.begin() > rules_.staleness_bound) return false;
    }
    if (rules_.staleness_bound >= 0 && static_cast<long>(in_flight_versions.size()) > rules_.staleness_bound)
      return false;
    return true;
  };
  auto serve = [&](int w) {
    fabric.send_message(w, {fabric.rank(), kParams, version, 0, mine});
    last_pulled[w] = version;
    in_flight[w] = version;
    in_flight_versions.insert(version);
  };
  auto serve_deferred = [&] {
    for (auto it = deferred.begin(); it != deferred.end();) {  // in arrival order
      if (can_serve(it->first, it->second)) {
        serve(it->first);
        it = deferred.erase(it);
      } else {
        ++it;
      }
    }
  };

  // Synchronous modes end at a version: `steps` updates (n-softsync: as many gradients as sync).
  std::int64_t last_version = rules_.blocking_pulls ? last_version_ : std::numeric_limits<std::int64_t>::max();
  int stopped = 0;
  std::vector<bool> is_stopped(workers_, false);
  auto mark_stopped = [&](int w) {
    if (!is_stopped[w]) ++stopped;
    is_stopped[w] = true;
  };
  auto finished = [&] { return rules_.blocking_pulls ? stopped == workers_ : received >= expected; };
  auto stop_deferred = [&] {
    for (const auto& d : deferred) {
      if (!is_stopped[d.first]) fabric.send_message(d.first, {fabric.rank(), kStop, version, 0, {}});
      mark_stopped(d.first);
    }
    deferred.clear();
  };

  auto next_version = [&] {
    ++version;
    accepted_in_version = 0;
    observer.version_done(j, version, fabric.now());
  };
  // Held-back pulls: served when they now may be, or stopped once the last version is reached.
  auto answer_deferred = [&] {
    if (version >= last_version) {
      stop_deferred();
    } else {
      serve_deferred();
    }
  };

  // In the synchronous modes a version may need more gradients than can still come: every worker
  // still running waits for it and has nothing in flight (e.g. the others were stopped by another
  // shard). Then the version is applied with what there is, and the run goes on.
  auto unblock = [&] {
    if (!rules_.blocking_pulls || deferred.empty() || version >= last_version) return;
    if (static_cast<int>(deferred.size()) != workers_ - stopped) return;
    for (const auto& d : deferred)
      if (pushes_from[d.first] < d.second) return;  // a push is still on its way
    next_version();
    answer_deferred();
  };

  auto on_pull = [&](int w, long step) {
    if (version >= last_version) {
      if (!is_stopped[w]) fabric.send_message(w, {fabric.rank(), kStop, version, 0, {}});
      mark_stopped(w);
      return;
    }
    fabric.mark_step(static_cast<int>(step));
    if (can_serve(w, step)) {
      serve(w);
    } else {
      deferred.push_back({w, step});
    }
  };
  auto on_push = [&](const Message& m) {
    ++pushes_from[m.from];
    if (version >= last_version) return;  // computed too late to matter
    ++received;
    auto it = in_flight.find(m.from);
    if (it != in_flight.end()) {
      in_flight_versions.erase(in_flight_versions.find(it->second));
      in_flight.erase(it);
    }
    if (rules_.drop_stale && m.a < version) {
      observer.dropped(j, fabric.now());
    } else {
      fabric.accept_data(Combine::kAdd);
      observer.applied(j, m.from, static_cast<int>(version - m.a), fabric.now());
      if (++accepted_in_version >= rules_.aggregate) next_version();
    }
    answer_deferred();
  };

  while (!finished()) {
    unblock();
    if (finished()) break;
    Message m = fabric.receive_message();
    switch (m.kind) {
      case kPull: on_pull(m.from, m.a); break;
      case kPush: on_push(m); break;
      case kPushPull:
        on_push(m);
        on_pull(m.from, m.b + 1);
        break;
      case kLeave:  // the worker's node failed: it pulls and pushes no more
        expected -= m.a;
        mark_stopped(m.from);
        break;
      default: break;
    }
  }
}

}  // namespace scaleout::core
