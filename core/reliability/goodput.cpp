#include "core/reliability/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/parallel/model_split.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/topology.hpp"
#include "core/reliability/checkpoint_size.hpp"

namespace scaleout::core {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Beyond this many expected failures per segment the run does not finish in any useful time.
constexpr double kHopelessExponent = 50;

double failure_rate(const GoodputInputs& in) { return in.mtbf_s > 0 ? 1 / in.mtbf_s : 0; }

// An asynchronous write longer than the work between checkpoints holds the next one back.
double segment_stall(const GoodputInputs& in, double interval) {
  return std::max(in.stall_s, in.write_s - interval);
}

// Erlang's B formula: failed nodes leave at `offered` per mean repair time, each away an
// exponential time; the job runs only while at most `spares` of them are away, so at a failure all
// spares are in use with this probability (the birth-death chain's stationary share of `spares`).
double no_spare_chance(int spares, double offered) {
  double b = 1;
  for (int k = 1; k <= spares; ++k) b = offered * b / (k + offered * b);
  return b;
}

// The expected wait for a node after a failure. With a spare left, none. Without, the first of the
// spares + 1 nodes then away to come back: with repair times exponential, repair / (spares + 1)
// in expectation (the failed node's own repair when there are no spares). Outside the waits nodes
// fail at 1/M (restarts too) and come back at their repair rate: the birth-death chain of nodes
// away whose share at `spares` is Erlang's B of repair / M.
double expected_node_wait(const GoodputInputs& in) {
  if (!(in.repair_s > 0) || !(in.mtbf_s > 0)) return 0;
  double offered = in.repair_s / in.mtbf_s;
  return no_spare_chance(in.spares, offered) * in.repair_s / (in.spares + 1);
}

// What a failure costs before its segment starts again: a wait for a node, then the restart, which
// a failure can interrupt too, and then both again (Daly 2006's complete model): exp(restart / M)
// attempts in expectation, each the wait and the restart's part before any failure. A failure while
// a checkpoint is still being written (asynchronous) loses that segment too: to first order, the
// write's length in expectation.
double restart_cost(const GoodputInputs& in) {
  double rate = failure_rate(in);
  if (rate * in.restart_s > kHopelessExponent) return kInfinity;  // restarts that never finish
  double attempts = rate > 0 ? std::exp(rate * in.restart_s) : 1;
  double restarting = rate > 0 ? std::expm1(rate * in.restart_s) / rate : in.restart_s;
  return attempts * expected_node_wait(in) + restarting + std::max(0.0, in.write_s - in.stall_s);
}

// Expected wall time of `length` seconds of segment (work and its checkpoint) under failures.
double expected_segment(double length, double rate, double restart) {
  if (rate == 0) return length;
  if (rate * length > kHopelessExponent) return kInfinity;
  return std::expm1(rate * length) * (1 / rate + restart);
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  double at = p * (v.size() - 1);
  std::size_t lo = static_cast<std::size_t>(at);
  std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - lo) * (v[hi] - v[lo]);
}

}  // namespace

double job_nodes_of(const Plan& plan) {
  return std::ceil(static_cast<double>(devices_needed(plan)) / plan.cluster.devices_per_node);
}

double job_failure_rate(const Plan& plan) {
  const Reliability& r = *plan.reliability;
  double devices = devices_needed(plan);
  double nodes = job_nodes_of(plan);
  double links = nodes * plan.cluster.nics_per_node;
  double rate = 0;
  if (r.gpu_mtbf > 0) rate += devices / r.gpu_mtbf;
  if (r.node_mtbf > 0) rate += nodes / r.node_mtbf;
  if (r.link_mtbf > 0) rate += links / r.link_mtbf;
  return rate;
}

ReliabilityOutcome expected_run(const GoodputInputs& in) {
  ReliabilityOutcome o;
  double rate = failure_rate(in), restart = restart_cost(in);
  double pace = expected_pace(in.slow);  // wall seconds of work: work / pace
  o.work_s = in.work_s;
  o.job_mtbf_s = in.mtbf_s;
  o.checkpoint_interval_s = in.interval_s;
  // Whole segments, then what is left (none when the interval divides the work, to rounding).
  double whole = in.interval_s > 0 ? std::floor(in.work_s / in.interval_s + 1e-9) : 0;
  double rest = std::max(0.0, in.work_s - whole * in.interval_s);
  if (in.interval_s > 0 && rest < 1e-9 * in.interval_s) rest = 0;
  double stall = in.interval_s > 0 ? segment_stall(in, in.interval_s) : 0;
  double last_stall = in.interval_s > 0 ? segment_stall(in, rest) : 0;
  double segments = whole + (rest > 0 ? 1 : 0);
  auto add = [&](double count, double length) {
    if (count == 0) return;
    o.time_to_train_s += count * expected_segment(length, rate, restart);
    if (rate > 0) o.failures += count * std::expm1(std::min(rate * length, kHopelessExponent));
  };
  add(whole, in.interval_s / pace + stall);
  add(rest > 0 ? 1 : 0, rest / pace + last_stall);
  o.checkpoint_s = whole * stall + (rest > 0 ? last_stall : 0);
  if (segments == 0) o.time_to_train_s = 0;
  o.restart_s = o.failures * restart;
  // Each failure in a segment brings exp(restart / M) - 1 more while restarting.
  if (rate > 0) o.failures *= std::exp(std::min(rate * in.restart_s, kHopelessExponent));
  o.node_wait_s = o.failures * expected_node_wait(in);
  o.slow_s = o.time_to_train_s > 0 ? in.work_s / pace - in.work_s : 0;
  o.lost_work_s =
      std::max(0.0, o.time_to_train_s - o.work_s - o.slow_s - o.checkpoint_s - o.restart_s);
  o.goodput = o.time_to_train_s > 0 ? o.work_s / o.time_to_train_s : 0;
  return o;
}

double expected_goodput(const GoodputInputs& in, double interval_s) {
  double length = interval_s / expected_pace(in.slow) + segment_stall(in, interval_s);
  double wall = expected_segment(length, failure_rate(in), restart_cost(in));
  return std::isfinite(wall) && wall > 0 ? interval_s / wall : 0;
}

double best_checkpoint_interval(const GoodputInputs& in, double shortest_s) {
  if (!(in.mtbf_s > 0)) return 0;
  // Goodput is unimodal in the interval: golden-section search over its logarithm.
  double lo = std::log(std::max(shortest_s, 1e-6));
  double hi = std::max(lo + 1, std::log(100 * in.mtbf_s));
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double a = hi - ratio * (hi - lo), b = lo + ratio * (hi - lo);
  double ga = expected_goodput(in, std::exp(a)), gb = expected_goodput(in, std::exp(b));
  for (int i = 0; i < 200 && hi - lo > 1e-9; ++i) {
    if (ga >= gb) {
      hi = b, b = a, gb = ga;
      a = hi - ratio * (hi - lo);
      ga = expected_goodput(in, std::exp(a));
    } else {
      lo = a, a = b, ga = gb;
      b = lo + ratio * (hi - lo);
      gb = expected_goodput(in, std::exp(b));
    }
  }
  return std::exp((lo + hi) / 2);
}

double young_interval(double stall_s, double mtbf_s) { return std::sqrt(2 * stall_s * mtbf_s); }

namespace {

// The sampled run's wait at a failure at wall time `now`: the failed node goes away for `repair`
// seconds; a spare takes its place while one is left, else the job waits for the first node back.
// `away` holds when each node away comes back (at most spares + 1 of them).
double node_wait(std::vector<double>& away, double now, int spares, double repair) {
  std::erase_if(away, [now](double back) { return back <= now; });
  bool spare_left = static_cast<int>(away.size()) < spares;
  away.push_back(now + repair);
  if (spare_left) return 0;
  auto first = std::min_element(away.begin(), away.end());
  double wait = *first - now;
  away.erase(first);  // that node joins the job
  return wait;
}

}  // namespace

double sampled_wall_time(const GoodputInputs& in, std::uint64_t seed) {
  double rate = failure_rate(in);
  if (rate * in.restart_s > kHopelessExponent) return kInfinity;  // restarts that never finish
  std::mt19937_64 random(seed);
  std::exponential_distribution<double> gap(rate > 0 ? rate : 1);
  auto next_failure = [&] { return rate > 0 ? gap(random) : kInfinity; };
  double remaining = in.work_s, wall = 0, until_failure = next_failure();
  double unsafe = 0;  // work whose checkpoint is still being written (asynchronous)
  long failures = 0;
  std::vector<double> away;  // when each failed node comes back
  // Repair times on a stream of their own: the failures are those of the same run without spares.
  std::mt19937_64 repairs(seed ^ 0x9e3779b97f4a7c15ULL);
  std::exponential_distribution<double> repair(in.repair_s > 0 ? 1 / in.repair_s : 1);
  SlowNodes slow(in.slow, seed ^ 0x5851f42d4c957f2dULL);  // slowdowns on a stream of their own
  const double done = 1e-9 * std::max(in.work_s, in.interval_s);  // rounding left over
  while (remaining > done) {
    double work = in.interval_s > 0 ? std::min(in.interval_s, remaining) : remaining;
    double length = slow.wall_for(work, wall) + (in.interval_s > 0 ? segment_stall(in, work) : 0);
    if (until_failure >= length) {
      wall += length;
      until_failure -= length;
      remaining -= work;
      unsafe = in.write_s > in.stall_s ? work : 0;
      continue;
    }
    if (rate * length > kHopelessExponent || ++failures > 100'000'000) return kInfinity;
    wall += until_failure;
    // The last checkpoint was not yet on storage: its segment is redone too.
    if (until_failure < in.write_s - in.stall_s) remaining += unsafe;
    unsafe = 0;
    // A wait for a node, then the restart, during which the job can fail again.
    for (;;) {
      if (in.repair_s > 0) wall += node_wait(away, wall, in.spares, repair(repairs));
      double next = next_failure();
      if (next >= in.restart_s) {
        wall += in.restart_s;
        until_failure = next - in.restart_s;
        break;
      }
      wall += next;
      if (++failures > 100'000'000) return kInfinity;
    }
  }
  return wall;
}

namespace {

// The run's length in steps: `train_steps`, or `train_tokens` over the tokens of one step.
double run_steps(const Plan& plan) {
  const Reliability& r = *plan.reliability;
  if (r.train_steps > 0) return r.train_steps;
  const ModelSplit s = model_split(plan);
  return r.train_tokens /
         (static_cast<double>(s.global_batch) * plan.workload.transformer->sequence);
}

// Work between checkpoints: whole steps (`every` in steps, or the time rounded up to steps).
double checkpoint_interval(const Resilience& r, double step_s) {
  if (r.checkpoint_every > 0) return r.checkpoint_every * step_s;
  if (r.checkpoint_every_s > 0) return std::ceil(r.checkpoint_every_s / step_s - 1e-9) * step_s;
  return 0;
}

void add_percentiles(ReliabilityOutcome& o, const GoodputInputs& in, const Reliability& r) {
  std::vector<double> walls, goodputs;
  for (int k = 0; k < r.samples; ++k) {
    double wall = sampled_wall_time(in, r.seed + k);
    walls.push_back(wall);
    goodputs.push_back(std::isfinite(wall) && wall > 0 ? in.work_s / wall : 0);
  }
  o.samples = r.samples;
  o.time_to_train_p10_s = percentile(walls, 0.1);
  o.time_to_train_p50_s = percentile(walls, 0.5);
  o.time_to_train_p90_s = percentile(walls, 0.9);
  o.goodput_p10 = percentile(goodputs, 0.1);
  o.goodput_p50 = percentile(goodputs, 0.5);
  o.goodput_p90 = percentile(goodputs, 0.9);
}

}  // namespace

ReliabilityOutcome reliability_outcome(const Plan& plan, double step_s,
                                       const std::optional<CheckpointTransfers>& simulated) {
  const CheckpointSize size = checkpoint_size(plan);
  const bool checkpoints =
      plan.resilience.checkpoint_every > 0 || plan.resilience.checkpoint_every_s > 0;
  const CheckpointTimes times =
      !checkpoints
          ? CheckpointTimes{}
          : checkpoint_times(plan, size, simulated ? *simulated : checkpoint_transfers(plan, size));
  GoodputInputs in;
  in.work_s = run_steps(plan) * step_s;
  in.interval_s = checkpoint_interval(plan.resilience, step_s);
  in.stall_s = times.stall_s;
  in.write_s = times.write_s;
  in.restart_s = plan.resilience.restart_time + times.read_s;
  in.repair_s = plan.reliability->repair;
  in.spares = plan.reliability->hot_spares;
  const Reliability& r = *plan.reliability;
  if (r.slow_mtbf > 0) in.slow = {job_nodes_of(plan) / r.slow_mtbf, r.slow_for, r.slow_speed};
  double rate = job_failure_rate(plan);
  in.mtbf_s = rate > 0 ? 1 / rate : 0;
  ReliabilityOutcome o = expected_run(in);
  o.checkpoint_bytes = checkpoints ? size.bytes : 0;
  o.checkpoint_cost_s = times.stall_s;
  o.checkpoint_write_s = times.write_s;
  o.checkpoint_read_s = times.read_s;
  if (checkpoints_move_to_storage(plan))
    o.checkpoint_timed_by = simulated ? "SimGrid" : "closed form";
  if (checkpoints) {
    o.best_checkpoint_interval_s = best_checkpoint_interval(in, step_s);
    o.best_goodput = o.best_checkpoint_interval_s > 0
                         ? expected_goodput(in, o.best_checkpoint_interval_s)
                         : expected_goodput(in, in.interval_s);
    o.young_interval_s = in.mtbf_s > 0 ? young_interval(in.stall_s, in.mtbf_s) : 0;
  }
  // A run expecting more failures than this is not one to plan: its spread is not sampled (each
  // sampled run would replay every failure).
  constexpr double kMostSampledFailures = 1e5;
  if (plan.reliability->samples > 0 && o.failures <= kMostSampledFailures)
    add_percentiles(o, in, *plan.reliability);
  return o;
}

double paid_devices(const Plan& plan, double devices) {
  if (!plan.reliability) return devices;
  return devices +
         static_cast<double>(plan.reliability->hot_spares) * plan.cluster.devices_per_node;
}

void validate_reliability(const Plan& plan) {
  const Resilience& res = plan.resilience;
  const bool checkpoints = res.checkpoint_every > 0 || res.checkpoint_every_s > 0;
  if (!plan.reliability) {
    if (res.checkpoint_every_s > 0)
      throw InputError(plan.file, res.checkpoint_line, "checkpoint.every",
                       "a time between checkpoints needs failure rates (reliability:); without "
                       "them give a number of steps");
    return;
  }
  const Reliability& r = *plan.reliability;
  if (!(r.train_steps > 0) && !(r.train_tokens > 0))
    throw InputError(plan.file, r.line, "reliability.train_steps",
                     "give the run's length: train_steps, or train_tokens for a transformer");
  if (r.train_tokens > 0 && !plan.workload.transformer)
    throw InputError(plan.file, r.line, "reliability.train_tokens",
                     "needs a transformer workload (tokens per step); give train_steps");
  if (!checkpoints || res.checkpoint_cost_given) return;
  const Storage& st = plan.cluster.storage;
  const std::string& file = plan.cluster.file.empty() ? plan.file : plan.cluster.file;
  if (!(st.write_bandwidth > 0))
    throw InputError(plan.file, res.checkpoint_line, "checkpoint.cost",
                     "give checkpoint.cost, or the cluster's storage.write_bandwidth (and "
                     "read_bandwidth) so that the split sets what a checkpoint costs");
  if (res.checkpoint_asynchronous && !(st.host_copy_bandwidth > 0))
    throw InputError(file, st.line, "storage.host_copy_bandwidth",
                     "an asynchronous checkpoint stalls training for the copy to host memory: "
                     "give its rate (such as 25GB/s)");
}

}  // namespace scaleout::core
