#include "sim/simulator.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <simgrid/s4u.hpp>
#include <unordered_map>
#include <xbt/config.hpp>

#include "core/files/atomic_file.hpp"
#include "core/formats/trace.hpp"
#include "core/model/step_model.hpp"
#include "core/model/transport.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/topology.hpp"
#include "core/programs/strategies/collective_training.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "core/programs/strategy.hpp"
#include "core/reliability/failure_model.hpp"
#include "core/reliability/goodput.hpp"
#include "core/reliability/slowdown.hpp"
#include "sim/actor_stacks.hpp"
#include "sim/checkpoint_transfers.hpp"
#include "sim/link_loads.hpp"
#include "sim/platform.hpp"
#include "sim/rail_bundle.hpp"
#include "sim/sim_engine.hpp"
#include "sim/sim_fabric.hpp"

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;
using core::Plan;
using core::RunResult;

namespace {

struct StepRecord {
  double start = 0, compute_end = 0, comm_s = 0, end = 0;
  bool done = false;
};

// Everything the actors of one simulation share.
struct Run {
  const Plan* plan = nullptr;
  core::StepModel model;
  std::unique_ptr<core::StrategyProgram> program;      // collectives and plain synchronous PS
  std::unique_ptr<core::CollectiveTraining> training;  // the loop around `program`
  std::unique_ptr<core::PsTraining> ps_training;       // PS with knobs (async, backup, softsync)
  SimWorld world;
  std::vector<std::unique_ptr<SimFabric>> fabrics;
  std::vector<std::vector<StepRecord>> records;  // [worker][step]
  std::vector<long> staleness;                   // histogram over applied gradients
  core::Gradients gradients;
  double last_apply = 0;
  std::vector<int> left_workers;
  std::map<int, std::vector<double>> version_times;  // shard -> time each version was reached
  core::Trace* trace = nullptr;
  std::vector<int> rank_track;
  int workers = 0;
  int steps = 0;
  int actors = 0, finished_actors = 0;  // a deadlock leaves actors blocked when the engine stops
};

// Collects what the collective training program reports.
class CollectiveRecorder : public core::CollectiveObserver {
 public:
  explicit CollectiveRecorder(Run& run) : run_(run) {}
  void step_done(int rank, const core::StepTimes& t) override {
    if (!t.worker) return;
    run_.records[rank][t.step] = {t.start, t.compute_end, t.comm_s, t.end, true};
  }
  void phase(int rank, const std::string& name, const char* category, double start,
             double end) override {
    if (run_.trace) run_.trace->span(run_.rank_track[rank], name, category, start, end - start);
  }

 private:
  Run& run_;
};

void collective_rank(Run* run, CollectiveRecorder* recorder, int rank) {
  run->training->run(*run->fabrics[rank], *recorder);
  ++run->finished_actors;
}

// Collects what the PS training program reports.
class Recorder : public core::TrainingObserver {
 public:
  explicit Recorder(Run& run) : run_(run) {}
  void worker_step(int worker, int step, double start, double pull_end, double compute_end,
                   double end) override {
    if (step >= run_.steps) return;  // n-softsync: a fast worker may do more local steps
    StepRecord& r = run_.records[worker][step];
    r = {start, compute_end, (pull_end - start) + (end - compute_end), end, true};
    if (run_.trace) {
      run_.trace->span(run_.rank_track[worker], "pull", "comm", start, pull_end - start);
      run_.trace->span(run_.rank_track[worker], "compute", "compute", pull_end,
                       compute_end - pull_end);
    }
  }
  // Staleness is recorded on every shard; gradients are counted on shard 0 (each gradient reaches
  // every shard as one piece), so that counts and throughput do not grow with the shards.
  void applied(int shard, int, int staleness, double time) override {
    if (static_cast<std::size_t>(staleness) >= run_.staleness.size())
      run_.staleness.resize(staleness + 1);
    ++run_.staleness[staleness];
    if (shard == 0) ++run_.gradients.applied;
    run_.last_apply = std::max(run_.last_apply, time);
  }
  void dropped(int shard, double time) override {
    if (shard == 0) ++run_.gradients.dropped;
    run_.last_apply = std::max(run_.last_apply, time);
  }
  void left(int worker, int, double) override { run_.left_workers.push_back(worker); }
  void version_done(int shard, std::int64_t version, double time) override {
    auto& times = run_.version_times[shard];
    if (static_cast<std::int64_t>(times.size()) < version) times.resize(version, 0.0);
    times[version - 1] = time;
  }

 private:
  Run& run_;
};

void ps_rank(Run* run, Recorder* recorder, int rank) {
  run->ps_training->run(*run->fabrics[rank], *recorder);
  ++run->finished_actors;
}

// Workers of nodes that fail, when an asynchronous PS goes on without them (servers unaffected).
bool continue_without_failed(const Plan& plan, const core::RankPlan& ranks) {
  if (!core::uses_ps_training(plan) || plan.strategy.ps_mode != core::PsMode::kAsync) return false;
  for (const auto& f : plan.resilience.failures)
    for (int d : ranks.placement.server_device)
      if (ranks.topology.node_of_device(d) == f.node) return false;
  return !plan.resilience.failures.empty();
}

// The program every rank runs: the PS training program, or the collective training loop around
// the plan's strategy.
void choose_program(Run& run, const Plan& plan, const core::RankPlan& ranks, bool go_on_without) {
  if (!core::uses_ps_training(plan)) {
    run.program = core::make_strategy(plan, ranks.layout);
    run.training = std::make_unique<core::CollectiveTraining>(
        *run.program, run.model, core::Slowdown(plan.stragglers), run.workers, run.steps,
        plan.training.overlap);
    return;
  }
  std::vector<int> leave_step(run.workers, -1);
  std::vector<double> leave_time(run.workers, -1);
  if (go_on_without)
    for (const auto& f : plan.resilience.failures)
      for (int w = 0; w < run.workers; ++w)
        if (ranks.layout.worker_node[w] == f.node) {
          leave_step[w] = f.at_step;
          leave_time[w] = f.at_time;
        }
  run.ps_training = std::make_unique<core::PsTraining>(
      plan, run.model, ranks.layout.workers, ranks.layout.servers, leave_step, leave_time);
}

// One fabric per rank on its device's host, and a trace track per rank when tracing.
void set_up_ranks(Run& run, const core::RankPlan& ranks, core::Trace* trace) {
  for (int r = 0; r < ranks.ranks(); ++r)
    run.fabrics.push_back(std::make_unique<SimFabric>(run.world, r));
  run.records.assign(run.workers, std::vector<StepRecord>(run.steps));
  run.trace = trace;
  if (!trace) return;
  for (int r = 0; r < ranks.ranks(); ++r)
    run.rank_track.push_back(trace->add_track(r < run.workers
                                                  ? "worker " + std::to_string(r)
                                                  : "server " + std::to_string(r - run.workers)));
  if (run.ps_training) {
    // A push lies on its server's track while it arrives; parameters inside the worker's pull.
    run.world.data_taken = [&run](int from, int to, double start, double end) {
      std::string name = to >= run.workers
                             ? "push from worker " + std::to_string(from)
                             : "parameters from server " + std::to_string(from - run.workers);
      run.trace->span(run.rank_track[to], name, "comm", start, end - start);
    };
  }
}

void launch_actors(Run& run, CollectiveRecorder& collective, Recorder& ps) {
  for (int r = 0; r < static_cast<int>(run.fabrics.size()); ++r) {
    std::string name =
        r < run.workers ? "worker" + std::to_string(r) : "server" + std::to_string(r - run.workers);
    if (run.ps_training) {
      sg4::Actor::create(name, run.world.rank_host[r], ps_rank, &run, &ps, r);
    } else {
      sg4::Actor::create(name, run.world.rank_host[r], collective_rank, &run, &collective, r);
    }
  }
  run.actors = static_cast<int>(sg4::Engine::get_instance()->get_actor_count());
}

// When each step ended, and each step's exchange time. A step ends when its last worker is
// through it; the exchange lasts, per step, as long as the slowest worker's (in fast fidelity a
// rank with only fast links finishes early). Synchronous PS modes: step k ends when every shard
// reached its k-th share of the versions.
std::pair<std::vector<double>, std::vector<double>> fold_steps(Run& run, const Plan& plan) {
  std::vector<double> step_end(run.steps, 0.0), step_comm(run.steps, 0.0);
  for (const auto& worker : run.records)
    for (int s = 0; s < run.steps; ++s) {
      if (!worker[s].done) continue;
      step_end[s] = std::max(step_end[s], worker[s].end);
      step_comm[s] = std::max(step_comm[s], worker[s].comm_s);
    }
  if (run.ps_training && core::ps_rules(plan).blocking_pulls) {
    std::int64_t last = core::ps_last_version(plan);
    for (int s = 0; s < run.steps; ++s) {
      step_end[s] = 0;
      auto v = static_cast<std::size_t>((s + 1) * last / run.steps);
      for (const auto& [shard, times] : run.version_times)
        if (v > 0 && !times.empty())
          step_end[s] = std::max(step_end[s], times[std::min(v, times.size()) - 1]);
    }
    run.last_apply = std::max(run.last_apply, step_end.empty() ? 0.0 : step_end.back());
  }
  for (int s = 1; s < run.steps; ++s) step_end[s] = std::max(step_end[s], step_end[s - 1]);
  // With a PS program the run is over when the servers applied the last gradient.
  double makespan = std::max(step_end.empty() ? 0.0 : step_end.back(), run.last_apply);
  if (!step_end.empty()) step_end.back() = makespan;
  return {step_end, step_comm};
}

// Throughput, staleness and resilience: what a PS program's gradients and the failures change.
void assemble_training(RunResult& result, const Run& run, const Plan& plan, bool go_on_without,
                       double makespan) {
  int batch = plan.training.batch_per_worker;
  if (run.ps_training) {
    result.gradients = run.gradients;
    result.staleness = core::staleness_from_histogram(run.staleness);
    // Only applied gradients train the model.
    core::derive_from_applied(result, batch, static_cast<double>(run.gradients.applied), makespan);
  } else {
    result.gradients.applied = static_cast<long>(run.workers) * run.steps;
    result.staleness = core::staleness_from_histogram({result.gradients.applied});
  }
  if (go_on_without) {
    result.resilience.policy = "continue_without_failed_workers";
    result.resilience.failures = static_cast<int>(plan.resilience.failures.size());
    result.resilience.left_workers = run.left_workers;
    std::sort(result.resilience.left_workers.begin(), result.resilience.left_workers.end());
    result.resilience.wall_s = makespan;
    result.resilience.goodput_samples_per_s = result.throughput_samples_per_s;
    return;
  }
  std::vector<double> times;
  for (const auto& s : result.steps) times.push_back(s.time_s);
  result.resilience = core::restart_from_checkpoint(times, plan.resilience,
                                                    static_cast<double>(run.workers) * batch);
  if (run.ps_training)
    result.resilience.goodput_samples_per_s =
        run.gradients.applied * batch / result.resilience.wall_s;
}

// A PS training program's workers are out of step: the communication of a step is the mean
// worker's (pull and push), not the slowest one's, so that it stays within the step.
double mean_worker_comm(const Run& run) {
  double sum = 0;
  long count = 0;
  for (const auto& worker : run.records)
    for (const auto& step : worker)
      if (step.done) sum += step.comm_s, ++count;
  return count ? sum / count : 0;
}

RunResult assemble_result(Run& run, const Plan& plan, const core::RankPlan& ranks,
                          bool go_on_without) {
  RunResult result =
      core::result_header(plan, "sim", plan.cluster.network_model, ranks.layout.servers);
  result.fidelity =
      run.world.coalesce ? fidelity_name(Fidelity::kFast) : fidelity_name(Fidelity::kStep);
  auto [step_end, step_comm] = fold_steps(run, plan);
  double makespan = step_end.empty() ? 0.0 : step_end.back(), prev = 0, comm_total = 0;
  for (int s = 0; s < run.steps; ++s) {
    result.steps.push_back({s, step_end[s] - prev});
    prev = step_end[s];
    comm_total += step_comm[s];
  }
  result.step_time_s = makespan / run.steps;
  result.phases.comm_s = run.ps_training ? mean_worker_comm(run) : comm_total / run.steps;
  // Compute per step of one nominal device without stragglers: what one worker alone would take,
  // so scaling efficiency also shows what stragglers and slower devices cost.
  result.phases.compute_s = run.model.compute_flops() / plan.cluster.device.flops;
  core::fill_derived(result, plan.training.batch_per_worker);
  assemble_training(result, run, plan, go_on_without, makespan);
  if (plan.reliability) result.reliability = core::reliability_outcome(plan, result.step_time_s);
  std::vector<double> step_start(run.steps, 0.0);
  for (int s = 1; s < run.steps; ++s) step_start[s] = step_end[s - 1];
  result.links = link_loads(ranks.topology, run.world, step_start, step_end, run.trace);
  return result;
}

}  // namespace

void set_up_world(SimWorld& world, const Plan& plan, const core::RankPlan& ranks,
                  const SimPlatform& platform, Fidelity fidelity, int bytes_per_element,
                  int direct) {
  for (int d : ranks.rank_device) {
    world.rank_device.push_back(d);
    world.rank_host.push_back(platform.device_hosts[d]);
  }
  if (platform.rail_hosts.size() > 1)  // several NICs per node: transfers between nodes stripe
    for (const auto& hosts : platform.rail_hosts) {
      world.rail_host.emplace_back();
      for (int d : ranks.rank_device) world.rail_host.back().push_back(hosts[d]);
    }
  world.topology = &ranks.topology;
  world.bytes_per_element = bytes_per_element;
  world.coalesce = fidelity_for(plan, fidelity) == Fidelity::kFast;
  world.direct_comms = direct;
  world.latency_factor = model_latency_factor();
  // Host costs: charged by the fabric to messages between nodes, whatever the strategy.
  world.host = plan.cluster.host;
  world.transport = plan.cluster.transport;
  world.overlap_slowdown = plan.cluster.device.overlap_slowdown;
  if (plan.cluster.network_model == "ib") world.sized = configured_size_factors();
}

std::unique_ptr<sg4::Engine> start_engine(const Plan& plan, const StackPlan& stacks,
                                          const std::vector<std::string>& config) {
  int argc = 2;
  char arg0[] = "scaleout";
  char arg1[] = "--log=root.thresh:critical";
  char* argv[] = {arg0, arg1, nullptr};
  auto engine = std::make_unique<sg4::Engine>(&argc, argv);
  configure_network_model(plan.cluster.network_model, plan.cluster.latency_factor);
  // The transport's TCP window (SimGrid's own default without a `transport:` block); a
  // --simgrid-cfg item below may still replace it.
  simgrid::config::set_value<double>("network/TCP-gamma",
                                     core::simgrid_window(plan.cluster.transport));
  apply_stack_plan(stacks);
  for (const std::string& item : config) {
    // SimGrid aborts the process on an item without a name and a value.
    std::size_t colon = item.find(':');
    if (colon == 0 || colon == std::string::npos || colon + 1 == item.size())
      throw core::InputError("", 0, "--simgrid-cfg", "'" + item + "' is not NAME:VALUE");
    try {
      sg4::Engine::set_config(item);
    } catch (const std::exception& e) {
      std::string why = e.what();  // its first line: SimGrid lists every option after it
      throw core::InputError(
          "", 0, "--simgrid-cfg",
          "SimGrid does not take '" + item + "': " + why.substr(0, why.find('\n')));
    }
  }
  return engine;
}

Fidelity parse_fidelity(const std::string& text, const std::string& field) {
  if (text == "fast") return Fidelity::kFast;
  if (text == "step") return Fidelity::kStep;
  throw core::InputError("", 0, field, "unknown fidelity '" + text + "'; expected fast or step");
}

const char* fidelity_name(Fidelity fidelity) {
  return fidelity == Fidelity::kFast ? "fast" : "step";
}

namespace {

// Ranks that compute at unlike speeds, or links of unlike bandwidths: a coalesced run of ring steps
// lets the ranks after a slow one go on as if its chunks came in step (a straggler of factor 2 at
// 64 workers: 85.6 ms fast against 100.2 ms step by step), so these plans run step by step.
bool uneven(const Plan& plan) {
  const core::Stragglers& s = plan.stragglers;
  bool slow = !s.slow_workers.empty() && s.slow_factor != 1;
  return slow || s.random != core::SlowdownKind::kNone ||
         !plan.cluster.heterogeneity.speed_factors.empty() ||
         !plan.cluster.heterogeneity.link_bandwidth.empty();
}

// A context or expert group's members hold places of one data group's ring: coalesced, the ring
// lets a member whose ring neighbours share its node end its exchange before the ring's chunks
// could have reached it, and the next step's first exchange in the group then waits for the rest
// (two-step runs over two nodes charged the key-value exchanges 18 ms of a 64 ms step where the
// closed form has 0.16, step by step 1.4; the all-to-alls 36.2 ms where it has 22.8, step by step
// 23.7).
bool groups_share_data_rings(const Plan& plan) {
  return plan.parallelism && (plan.parallelism->context > 1 || plan.parallelism->expert > 1);
}

}  // namespace

Fidelity fidelity_for(const Plan& plan, Fidelity asked) {
  if (plan.cluster.intra_fabric.kind == core::IntraNodeKind::kPcieTree || uneven(plan) ||
      groups_share_data_rings(plan))
    return Fidelity::kStep;
  return asked;
}

SimSetup set_up_simulation(const Plan& plan, const SimOptions& options,
                           const std::function<std::int64_t(const core::RankPlan&)>& actors) {
  SimSetup s;
  s.bundled = bundles_rails(plan, options.shortcuts.bundle_rails_from);
  s.ranks = core::plan_ranks(s.bundled ? with_rails_bundled(plan) : plan);
  StackPlan stacks = plan_stacks(actors(s.ranks), kStackBytes,
                                 read_process_limits(options.shortcuts.max_map_count), plan.file);
  s.engine = start_engine(plan, stacks, options.simgrid_config);
  // Once SimGrid's options are set: bundled rails widen their TCP window (sim/rail_bundle.hpp),
  // or stay striped where the window binds inside the nodes.
  if (s.bundled && !widen_window_for_rails(plan)) {
    s.bundled = false;
    s.ranks = core::plan_ranks(plan);
  }
  s.platform =
      build_platform(s.ranks.topology, options.shortcuts.flat_zone, storage_link_for(plan));
  return s;
}

int direct_comms(const SimOptions& options) {
  int set = options.shortcuts.direct_transfers;
  return set > 0 ? set : SimWorld{}.direct_comms;
}

// Relay actors alive at once, at most: only parameter servers and their workers have more
// transfers in flight than a rank keeps itself (a server one per worker, a worker one per server).
std::int64_t relay_actors(const core::RankLayout& layout, int direct) {
  auto batches = [direct](std::int64_t transfers) { return (transfers - 1) / direct; };
  return layout.servers * batches(layout.workers) + layout.workers * batches(layout.servers);
}

RunResult simulate_here(const Plan& plan, const SimOptions& options) {
  check_simulation(plan, options);
  if (plan.parallelism) return simulate_model_parallel_here(plan, options);
  auto wall0 = std::chrono::steady_clock::now();
  // One actor per rank (its compute stream is arithmetic, not an actor), SimGrid's own, and relays.
  int direct = direct_comms(options);
  SimSetup setup = set_up_simulation(plan, options, [direct](const core::RankPlan& ranks) {
    return static_cast<std::int64_t>(ranks.ranks()) + 1 + relay_actors(ranks.layout, direct);
  });
  const core::RankPlan& ranks = setup.ranks;
  SimPlatform& platform = setup.platform;
  auto& engine = setup.engine;

  Run run;
  run.plan = &plan;
  run.model = core::make_step_model(plan);
  run.workers = plan.training.workers;
  run.steps = plan.training.steps;
  bool go_on_without = continue_without_failed(plan, ranks);
  choose_program(run, plan, ranks, go_on_without);
  set_up_world(run.world, plan, ranks, platform, options.fidelity, run.model.bytes_per_element,
               direct);
  core::Trace trace;
  set_up_ranks(run, ranks, options.trace_path.empty() ? nullptr : &trace);

  CollectiveRecorder collective(run);
  Recorder ps(run);
  launch_actors(run, collective, ps);
  engine->run();
  if (run.finished_actors != run.actors)
    throw std::runtime_error(
        "the simulation stopped with " + std::to_string(run.actors - run.finished_actors) + " of " +
        std::to_string(run.actors) + " ranks still waiting (a deadlock in the strategy)");

  RunResult result = assemble_result(run, plan, ranks, go_on_without);
  time_checkpoints_on_links(result, plan, *engine, platform, run.world.rank_device);
  if (setup.bundled) result.warnings.push_back(rails_bundled_warning(plan));
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (run.trace)
    trace.write(options.trace_path,
                "sim " + result.strategy + ", " + std::to_string(run.workers) + " workers");
  return result;
}

}  // namespace scaleout::sim
