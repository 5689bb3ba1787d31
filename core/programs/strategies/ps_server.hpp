// One parameter-server shard: serves pulls and applies pushes as they arrive, under the rules of
// its mode (PsRules in ps_training.hpp). Its state is the shard's version, the pulls it holds back,
// the gradients in flight and the workers that stopped; its decisions can be read and tested apart
// from the loop that feeds it messages.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "core/codecs/delay_compensation.hpp"
#include "core/programs/fabric.hpp"
#include "core/programs/strategies/ps_training.hpp"

namespace scaleout::core {

// Bounded staleness (SSP): may one more pull be served while gradients computed on the versions in
// `in_flight` are still to come? Not if, after it, a gradient in flight could end up more than
// `bound` versions stale (version + in flight - oldest pulled version > bound). bound < 0: no
// bound.
bool staleness_bound_admits(int bound, std::int64_t version,
                            const std::multiset<std::int64_t>& in_flight);

class ServerShard {
 public:
  // The shard `shard` holding `range`; it applies `expected_pushes` pushes at most and, in the
  // synchronous modes, stops at `last_version`.
  ServerShard(Fabric& fabric, TrainingObserver& observer, const PsRules& rules, int workers,
              int shard, Span range, long expected_pushes, std::int64_t last_version);

  // Delay compensation (DC-ASGD): the shard keeps each worker's pulled copy in its buffer's words
  // after the gradient's `elements`, `slot` words a worker, and applies pushes compensated.
  void compensate(const CompensationCost& cost, std::int64_t elements, std::int64_t slot);

  // Serves until every worker stopped (synchronous modes) or every push arrived (asynchronous).
  void run();

 private:
  bool finished() const;
  bool can_serve(int worker, long step) const;
  void serve(int worker);
  void serve_deferred();
  void stop_deferred();
  void answer_deferred();
  void next_version();
  void unblock();
  void mark_stopped(int worker);
  void on_pull(int worker, long step);
  void on_push(const Message& m);
  void apply_gradient(int worker);
  void keep_pulled_copy(int worker);

  Fabric& fabric_;
  TrainingObserver& observer_;
  PsRules rules_;
  int workers_, shard_;
  Span range_;
  long expected_, received_ = 0;
  std::int64_t last_version_, version_ = 0;
  int accepted_in_version_ = 0, stopped_ = 0;
  std::vector<std::int64_t> last_pulled_;
  std::map<int, std::int64_t> in_flight_;  // worker -> version it pulled
  std::multiset<std::int64_t> in_flight_versions_;
  std::vector<long> pushes_from_;
  std::vector<bool> is_stopped_;
  std::deque<std::pair<int, long>>
      deferred_;  // held-back pulls: (worker, its step), in arrival order
  std::optional<CompensationCost> compensation_;
  std::int64_t copies_at_ = 0, copy_slot_ = 0;  // where the pulled copies are (words)
};

}  // namespace scaleout::core
