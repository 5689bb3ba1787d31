// The parameter server as a training program: workers loop pull, compute, push; each server
// shard serves pulls and applies pushes as they arrive. One program covers TensorFlow's
// SyncReplicasOptimizer (replicas_to_aggregate, backup workers), n-softsync, asynchronous PS and
// bounded staleness, as knobs of the server's rules:
//   - aggregate: the server bumps its version after this many accepted gradients;
//   - drop_stale: gradients computed on an older version are dropped (sync with backup workers);
//   - blocking pulls: a worker may pull only a version newer than its last (sync, softsync);
//   - staleness bound s (async): a pull waits until no gradient in flight can end up more than s
//     versions stale, i.e. while version + in_flight - oldest_pulled_version > s.
// Staleness of an applied gradient = versions applied to its shard since the worker pulled it.
#pragma once

#include <optional>
#include <vector>

#include "core/codecs/delay_compensation.hpp"
#include "core/model/step_model.hpp"
#include "core/plan/plan.hpp"
#include "core/programs/fabric.hpp"
#include "core/reliability/slowdown.hpp"

namespace scaleout::core {

// What the program reports as it runs (times from fabric.now()).
class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  // A worker's step: pull from `start` to `pull_end`, compute until `compute_end`, push posted by
  // `end`.
  virtual void worker_step(int worker, int step, double start, double pull_end, double compute_end,
                           double end) = 0;
  virtual void applied(int shard, int worker, int staleness, double time) = 0;
  virtual void dropped(int shard, double time) = 0;
  // The shard reached `version` (versions count from 0; version v+1 follows v's last gradient).
  virtual void version_done(int shard, std::int64_t version, double time) = 0;
  virtual void left(int worker, int step, double time) = 0;
};

struct PsRules {
  int aggregate = 1;
  bool drop_stale = false;
  bool blocking_pulls = false;
  int staleness_bound = -1;  // -1: none
};

// The rules a plan's strategy section asks for (mode, replicas_to_aggregate, softsync, bound).
PsRules ps_rules(const Plan& plan);
// Versions a synchronous-mode server applies before the run ends (sync: one per step; n-softsync:
// as many as make the same number of gradients as sync).
std::int64_t ps_last_version(const Plan& plan);
// True when the plan needs the PS training program (any knob beyond plain synchronous PS).
bool uses_ps_training(const Plan& plan);

class PsTraining {
 public:
  // `leave_step[w]`: the step before which worker w leaves (its node failed), or -1.
  // `leave_time[w]`: the time after which worker w leaves at its next step, or -1.
  PsTraining(const Plan& plan, const StepModel& model, int workers, int servers,
             std::vector<int> leave_step, std::vector<double> leave_time);

  // Runs the whole training on one rank: ranks below `workers` are workers, the rest servers.
  void run(Fabric& fabric, TrainingObserver& observer) const;

 private:
  void worker(Fabric& fabric, TrainingObserver& observer) const;
  void server(Fabric& fabric, TrainingObserver& observer) const;
  Span shard(int j) const;

  PsRules rules_;
  StepModel model_;
  Slowdown slowdown_;
  int workers_, servers_, steps_;
  double start_offset_ = 0;  // seconds over which asynchronous workers start
  std::vector<int> leave_step_;
  std::vector<double> leave_time_;
  std::int64_t last_version_;
  std::optional<CompensationCost> compensation_;  // DC-ASGD on the servers, when the plan asks
};

}  // namespace scaleout::core
