// Goodput of a long run: random failures at the rates of `reliability:`, checkpoints every
// interval, and a restart after each failure that reads the last checkpoint back and redoes the
// work done since. The closed form gives the expectation; a sampled run, the spread.
//
// The model (Daly 2006's complete one): training runs in segments of `interval` seconds of work,
// each followed by a checkpoint that stalls training `stall` seconds. Failures arrive at rate 1/M
// (M: the job's mean time between failures), also while the job restarts. A failure throws away
// the segment under way and costs `restart` seconds before the segment starts again, or a failure
// and another restart when one comes first. The expected time of one segment is then
// M exp(restart / M) (exp((interval + stall) / M) - 1), and goodput, the share of wall time spent
// on work kept, is interval over that.
//
// Hot spares: a failed node is away for a repair time, exponential with mean `repair`. While one of
// the spares is idle it takes the node's place; when none is, the job waits for the first node back
// before it restarts. With failures at rate 1/M, the chance of finding no spare is Erlang's B
// formula B(spares, repair / (M + restart)) (the job runs only while at most `spares` nodes are
// away, and nodes come back during restarts too), and the wait then repair / (spares + 1) in
// expectation; their product is added to the restart. The sampled run draws each repair and
// tracks each node away.
//
// Slow nodes (core/reliability/slow_nodes.hpp) stretch the work: in expectation every second of
// work takes 1 / pace seconds of wall time, checkpoints and restarts unchanged; a sampled run draws
// each slowdown. Time at a slow pace counts against goodput (as lost to slowdowns, `slow_s`).
#pragma once

#include <cstdint>
#include <optional>

#include "core/plan/plan.hpp"
#include "core/reliability/checkpoint_size.hpp"
#include "core/reliability/slow_nodes.hpp"
#include "core/results/result.hpp"

namespace scaleout::core {

// What a failure and a checkpoint cost, and how often failures come.
struct GoodputInputs {
  double work_s = 0;      // failure-free training time of the whole run
  double interval_s = 0;  // work between checkpoints (0: none; a failure restarts the run)
  double stall_s = 0;     // training stopped per checkpoint
  double write_s = 0;     // until a checkpoint is safe (asynchronous: beside training)
  double restart_s = 0;   // detection, rescheduling and reading the checkpoint back
  double mtbf_s = 0;      // the job's (0: it never fails)
  double repair_s = 0;    // a failed node away (0: a replacement is always at hand)
  int spares = 0;         // idle nodes that take a failed node's place while it is away
  SlowdownRates slow;  // nodes that slow the job without failing (core/reliability/slow_nodes.hpp)
};

// The nodes the plan's devices take (whole nodes).
double job_nodes_of(const Plan& plan);

// The job's failures per second: each device, node and node link of the plan at its own rate.
double job_failure_rate(const Plan& plan);

// The expected run (wall time, failures, and where the time went) in closed form.
ReliabilityOutcome expected_run(const GoodputInputs& in);

// Goodput of an endless run with checkpoints `interval_s` apart (the expectation above).
double expected_goodput(const GoodputInputs& in, double interval_s);

// The interval that maximizes expected_goodput, at least `shortest_s` (one step); 0 when the job
// never fails (no checkpoint is worth its stall).
double best_checkpoint_interval(const GoodputInputs& in, double shortest_s);

// Young's (1974) first-order optimum: sqrt(2 x stall x MTBF).
double young_interval(double stall_s, double mtbf_s);

// Wall time of one sampled run: failures drawn at random from `seed`. Its memory does not grow
// with the run's length.
double sampled_wall_time(const GoodputInputs& in, std::uint64_t seed);

// The plan's reliability outcome for failure-free steps of `step_s` each: checkpoint size and
// times from the split, the expectation, the best interval and the percentiles of
// `reliability.samples` sampled runs (none, `samples` 0, when over 100,000 failures are
// expected). REQUIRES: plan.reliability.
// `simulated`: the checkpoint's transfers timed on the platform's links (SimGrid) instead of in
// closed form (checkpoint_transfers).
ReliabilityOutcome reliability_outcome(
    const Plan& plan, double step_s,
    const std::optional<CheckpointTransfers>& simulated = std::nullopt);

// The devices a cluster of `devices` is paid for: with them, its hot spares' nodes
// (reliability.hot_spares, idle until a node fails).
double paid_devices(const Plan& plan, double devices);

// Throws InputError for a plan whose reliability section cannot be answered: no run length, no
// way to time a checkpoint, an asynchronous checkpoint without the host copy's rate.
void validate_reliability(const Plan& plan);

}  // namespace scaleout::core
