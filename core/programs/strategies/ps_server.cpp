#include "core/programs/strategies/ps_server.hpp"

#include <algorithm>
#include <limits>

#include "core/programs/strategies/ps_protocol.hpp"

namespace scaleout::core {

bool staleness_bound_admits(int bound, std::int64_t version,
                            const std::multiset<std::int64_t>& in_flight) {
  if (bound < 0 || in_flight.empty()) return true;
  // After this pull, every gradient in flight could still see all the others applied first.
  auto n = static_cast<std::int64_t>(in_flight.size()) + 1;
  if (version + (n - 1) - *in_flight.begin() > bound) return false;
  return static_cast<std::int64_t>(in_flight.size()) <= bound;
}

ServerShard::ServerShard(Fabric& fabric, TrainingObserver& observer, const PsRules& rules,
                         int workers, int shard, Span range, long expected_pushes,
                         std::int64_t last_version)
    : fabric_(fabric),
      observer_(observer),
      rules_(rules),
      workers_(workers),
      shard_(shard),
      range_(range),
      expected_(expected_pushes),
      // Synchronous modes end at a version: `steps` updates (n-softsync: as many gradients as
      // sync).
      last_version_(rules.blocking_pulls ? last_version : std::numeric_limits<std::int64_t>::max()),
      last_pulled_(workers, -1),
      pushes_from_(workers, 0),
      is_stopped_(workers, false) {}

bool ServerShard::finished() const {
  return rules_.blocking_pulls ? stopped_ == workers_ : received_ >= expected_;
}

// A worker's pull is served after its previous push was applied (one connection keeps order).
bool ServerShard::can_serve(int w, long step) const {
  if (pushes_from_[w] < step) return false;
  if (rules_.blocking_pulls && last_pulled_[w] >= version_) return false;
  return staleness_bound_admits(rules_.staleness_bound, version_, in_flight_versions_);
}

void ServerShard::compensate(const CompensationCost& cost, std::int64_t elements,
                             std::int64_t slot) {
  compensation_ = cost;
  copies_at_ = elements;
  copy_slot_ = slot;
}

// DC-ASGD: the parameters a worker pulls are the ones its next gradient is compensated against.
// (The copy's time is in the update's: host.compensate_rate covers both.)
void ServerShard::keep_pulled_copy(int w) {
  fabric_.device().local_work(0, [this, w](float* words) {
    std::copy(words + range_.begin, words + range_.end(),
              words + pulled_copy_offset(copies_at_, copy_slot_, w));
  });
}

void ServerShard::apply_gradient(int w) {
  if (!compensation_) {
    fabric_.mailbox().accept_data(Combine::kAdd);
    return;
  }
  fabric_.mailbox().accept_update(
      compensation_->update_s, [this, w](float* words, const float* gradient) {
        compensated_update(words + range_.begin, gradient,
                           words + pulled_copy_offset(copies_at_, copy_slot_, w), range_.count,
                           static_cast<float>(compensation_->lambda),
                           static_cast<float>(compensation_->learning_rate));
      });
}

void ServerShard::serve(int w) {
  if (compensation_) keep_pulled_copy(w);
  fabric_.mailbox().send_message(w, ps::params(fabric_.rank(), version_, range_));
  last_pulled_[w] = version_;
  in_flight_[w] = version_;
  in_flight_versions_.insert(version_);
}

void ServerShard::serve_deferred() {
  for (auto it = deferred_.begin(); it != deferred_.end();) {  // in arrival order
    if (can_serve(it->first, it->second)) {
      serve(it->first);
      it = deferred_.erase(it);
    } else {
      ++it;
    }
  }
}

void ServerShard::mark_stopped(int w) {
  if (!is_stopped_[w]) ++stopped_;
  is_stopped_[w] = true;
}

void ServerShard::stop_deferred() {
  for (const auto& d : deferred_) {
    if (!is_stopped_[d.first])
      fabric_.mailbox().send_message(d.first, ps::stop(fabric_.rank(), version_));
    mark_stopped(d.first);
  }
  deferred_.clear();
}

// Held-back pulls: served when they now may be, or stopped once the last version is reached.
void ServerShard::answer_deferred() {
  if (version_ >= last_version_) {
    stop_deferred();
  } else {
    serve_deferred();
  }
}

void ServerShard::next_version() {
  ++version_;
  accepted_in_version_ = 0;
  observer_.version_done(shard_, version_, fabric_.now());
}

// In the synchronous modes a version may need more gradients than can still come: every worker
// still running waits for it and has nothing in flight (e.g. the others were stopped by another
// shard). Then the version is applied with what there is, and the run goes on.
void ServerShard::unblock() {
  if (!rules_.blocking_pulls || deferred_.empty() || version_ >= last_version_) return;
  if (static_cast<int>(deferred_.size()) != workers_ - stopped_) return;
  for (const auto& d : deferred_)
    if (pushes_from_[d.first] < d.second) return;  // a push is still on its way
  next_version();
  answer_deferred();
}

void ServerShard::on_pull(int w, long step) {
  if (version_ >= last_version_) {
    if (!is_stopped_[w]) fabric_.mailbox().send_message(w, ps::stop(fabric_.rank(), version_));
    mark_stopped(w);
    return;
  }
  fabric_.mark_step(static_cast<int>(step));
  if (can_serve(w, step)) {
    serve(w);
  } else {
    deferred_.push_back({w, step});
  }
}

void ServerShard::on_push(const Message& m) {
  ++pushes_from_[m.from];
  if (version_ >= last_version_) return;  // computed too late to matter
  ++received_;
  auto it = in_flight_.find(m.from);
  if (it != in_flight_.end()) {
    in_flight_versions_.erase(in_flight_versions_.find(it->second));
    in_flight_.erase(it);
  }
  std::int64_t computed_on = ps::version_of(m);
  if (rules_.drop_stale && computed_on < version_) {
    observer_.dropped(shard_, fabric_.now());
  } else {
    apply_gradient(m.from);
    observer_.applied(shard_, m.from, static_cast<int>(version_ - computed_on), fabric_.now());
    if (++accepted_in_version_ >= rules_.aggregate) next_version();
  }
  answer_deferred();
}

void ServerShard::run() {
  while (!finished()) {
    unblock();
    if (finished()) break;
    Message m = fabric_.mailbox().receive_message();
    switch (ps::kind_of(m)) {
      case ps::Kind::kPull:
        on_pull(m.from, ps::pull_step(m));
        break;
      case ps::Kind::kPush:
        on_push(m);
        break;
      case ps::Kind::kPushPull:
        on_push(m);
        on_pull(m.from, ps::push_step(m) + 1);
        break;
      case ps::Kind::kLeave:  // the worker's node failed: it pulls and pushes no more
        expected_ -= ps::remaining_steps(m);
        mark_stopped(m.from);
        break;
      default:
        break;
    }
  }
}

}  // namespace scaleout::core
