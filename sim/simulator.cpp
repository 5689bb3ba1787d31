#include "sim/simulator.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <map>
#include <unordered_map>

#include "core/atomic_file.hpp"
#include "core/input_error.hpp"
#include "core/step_model.hpp"
#include "core/failure_model.hpp"
#include "core/slowdown.hpp"
#include "core/strategies/ps_training.hpp"
#include "core/strategy.hpp"
#include "core/topology.hpp"
#include "core/trace.hpp"
#include "sim/link_loads.hpp"
#include "sim/platform.hpp"
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
  std::unique_ptr<core::StrategyProgram> program;  // collectives and plain synchronous PS
  std::unique_ptr<core::PsTraining> ps_training;   // PS with knobs (async, backup, softsync)
  core::Slowdown slowdown{core::Stragglers{}};
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

// Exchanges every bucket of one step, each as soon as it is ready; returns the comm time.
double exchange_buckets(Run& run, int rank, int step, const sg4::SemaphorePtr& ready) {
  SimFabric& fabric = *run.fabrics[rank];
  fabric.set_step(step);
  double busy = 0;
  for (std::size_t b = 0; b < run.model.buckets.size(); ++b) {
    if (ready) ready->acquire();
    double t0 = fabric.now();
    run.program->run(fabric, run.model.buckets[b].span);
    fabric.reset();
    double t1 = fabric.now();
    busy += t1 - t0;
    if (run.trace && rank < run.workers)
      run.trace->span(run.rank_track[rank], "exchange bucket " + std::to_string(b), "comm", t0, t1 - t0);
  }
  return busy;
}

// A worker's compute side: forward, then backward in slices, releasing each bucket when ready.
// Stragglers stretch the whole step's compute by their factor.
void compute_step(Run& run, int rank, int step, StepRecord& rec, const sg4::SemaphorePtr& ready) {
  double f = run.slowdown.factor(rank, step);
  rec.start = sg4::Engine::get_clock();
  sg4::this_actor::execute(run.model.forward_flops * f);
  double mid = sg4::Engine::get_clock();
  double done = 0;
  for (const auto& bucket : run.model.buckets) {
    double slice = (bucket.ready_fraction - done) * run.model.backward_flops * f;
    if (slice > 0) sg4::this_actor::execute(slice);
    done = bucket.ready_fraction;
    if (ready) ready->release();
  }
  if (done < 1) sg4::this_actor::execute((1 - done) * run.model.backward_flops * f);
  rec.compute_end = sg4::Engine::get_clock();
  if (run.trace) {
    run.trace->span(run.rank_track[rank], "forward", "compute", rec.start, mid - rec.start);
    run.trace->span(run.rank_track[rank], "backward", "compute", mid, rec.compute_end - mid);
  }
}

void worker_without_overlap(Run* run, int rank) {
  for (int s = 0; s < run->steps; ++s) {
    StepRecord& rec = run->records[rank][s];
    compute_step(*run, rank, s, rec, nullptr);
    rec.comm_s = exchange_buckets(*run, rank, s, nullptr);
    rec.end = sg4::Engine::get_clock();
    rec.done = true;
  }
  ++run->finished_actors;
}

// With overlap a worker is two actors on one device: compute and communication, joined by
// semaphores (a bucket is ready; the step's exchange is over and the next forward may start).
void worker_compute(Run* run, int rank, sg4::SemaphorePtr ready, sg4::SemaphorePtr step_done) {
  for (int s = 0; s < run->steps; ++s) {
    compute_step(*run, rank, s, run->records[rank][s], ready);
    step_done->acquire();
  }
  ++run->finished_actors;
}

void worker_comm(Run* run, int rank, sg4::SemaphorePtr ready, sg4::SemaphorePtr step_done) {
  for (int s = 0; s < run->steps; ++s) {
    StepRecord& rec = run->records[rank][s];
    rec.comm_s = exchange_buckets(*run, rank, s, ready);
    rec.end = sg4::Engine::get_clock();
    rec.done = true;
    step_done->release();
  }
  ++run->finished_actors;
}

void collective_server(Run* run, int rank) {
  for (int s = 0; s < run->steps; ++s) exchange_buckets(*run, rank, s, nullptr);
  ++run->finished_actors;
}

// Collects what the PS training program reports.
class Recorder : public core::TrainingObserver {
 public:
  explicit Recorder(Run& run) : run_(run) {}
  void worker_step(int worker, int step, double start, double pull_end, double compute_end, double end) override {
    if (step >= run_.steps) return;  // n-softsync: a fast worker may do more local steps
    StepRecord& r = run_.records[worker][step];
    r = {start, compute_end, (pull_end - start) + (end - compute_end), end, true};
    if (run_.trace) {
      run_.trace->span(run_.rank_track[worker], "pull", "comm", start, pull_end - start);
      run_.trace->span(run_.rank_track[worker], "compute", "compute", pull_end, compute_end - pull_end);
    }
  }
  // Staleness is recorded on every shard; gradients are counted on shard 0 (each gradient reaches
  // every shard as one piece), so that counts and throughput do not grow with the shards.
  void applied(int shard, int, int staleness, double time) override {
    if (static_cast<std::size_t>(staleness) >= run_.staleness.size()) run_.staleness.resize(staleness + 1);
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
bool continue_without_failed(const Plan& plan, const core::Topology& topo, const core::Placement& placement) {
  if (!core::uses_ps_training(plan) || plan.strategy.ps_mode != core::PsMode::kAsync) return false;
  for (const auto& f : plan.resilience.failures)
    for (int d : placement.server_device)
      if (topo.node_of_device(d) == f.node) return false;
  return !plan.resilience.failures.empty();
}

}  // namespace

RunResult simulate_here(const Plan& plan, const SimOptions& options) {
  auto wall0 = std::chrono::steady_clock::now();
  int argc = 2;
  char arg0[] = "scaleout";
  char arg1[] = "--log=root.thresh:critical";
  char* argv[] = {arg0, arg1, nullptr};
  sg4::Engine engine(&argc, argv);
  configure_network_model(plan.cluster.network_model);
  sg4::Engine::set_config("contexts/stack-size:256");  // KiB: thousands of actors stay small
  // Expert knobs: SCALEOUT_SIMGRID_CFG="name:value;name:value" passes SimGrid options through.
  if (const char* extra = std::getenv("SCALEOUT_SIMGRID_CFG")) {
    std::stringstream items(extra);
    for (std::string item; std::getline(items, item, ';');)
      if (!item.empty()) sg4::Engine::set_config(item);
  }

  core::Topology topo = core::Topology::build(plan.cluster, core::devices_needed(plan));
  core::Placement placement = core::place_ranks(plan, topo);
  SimPlatform platform = build_platform(topo);

  Run run;
  run.plan = &plan;
  run.model = core::make_step_model(plan);
  run.slowdown = core::Slowdown(plan.stragglers);
  run.workers = plan.training.workers;
  run.steps = plan.training.steps;
  core::RankLayout layout;
  layout.workers = run.workers;
  layout.servers = static_cast<int>(placement.server_device.size());
  for (int d : placement.worker_device) layout.worker_node.push_back(topo.node_of_device(d));

  bool ps_program = core::uses_ps_training(plan);
  bool go_on_without = continue_without_failed(plan, topo, placement);
  if (ps_program) {
    std::vector<int> leave_step(run.workers, -1);
    std::vector<double> leave_time(run.workers, -1);
    if (go_on_without)
      for (const auto& f : plan.resilience.failures)
        for (int w = 0; w < run.workers; ++w)
          if (layout.worker_node[w] == f.node) {
            leave_step[w] = f.at_step;
            leave_time[w] = f.at_time;
          }
    run.ps_training = std::make_unique<core::PsTraining>(plan, run.model, layout.workers, layout.servers,
                                                         leave_step, leave_time);
  } else {
    run.program = core::make_strategy(plan, layout);
  }

  run.world.topology = &topo;
  run.world.bytes_per_element = run.model.bytes_per_element;
  run.world.coalesce = options.fidelity != "step";
  run.world.latency_factor = model_latency_factor();
  std::vector<int> devices = placement.worker_device;
  devices.insert(devices.end(), placement.server_device.begin(), placement.server_device.end());
  for (int d : devices) {
    run.world.rank_device.push_back(d);
    run.world.rank_host.push_back(platform.device_hosts[d]);
  }
  int ranks = static_cast<int>(devices.size());
  for (int r = 0; r < ranks; ++r) run.fabrics.push_back(std::make_unique<SimFabric>(run.world, r));
  run.records.assign(run.workers, std::vector<StepRecord>(run.steps));

  core::Trace trace;
  if (!options.trace_path.empty()) {
    run.trace = &trace;
    for (int r = 0; r < ranks; ++r)
      run.rank_track.push_back(trace.add_track(r < run.workers ? "worker " + std::to_string(r)
                                                               : "server " + std::to_string(r - run.workers)));
  }

  Recorder recorder(run);
  if (ps_program && run.trace) {
    // A push lies on its server's track while it arrives; parameters inside the worker's pull.
    run.world.data_taken = [&run](int from, int to, double start, double end) {
      std::string name = to >= run.workers ? "push from worker " + std::to_string(from)
                                           : "parameters from server " + std::to_string(from - run.workers);
      run.trace->span(run.rank_track[to], name, "comm", start, end - start);
    };
  }
  if (ps_program) {
    for (int r = 0; r < ranks; ++r) {
      std::string name = r < run.workers ? "worker" + std::to_string(r) : "server" + std::to_string(r - run.workers);
      sg4::Actor::create(name, run.world.rank_host[r], ps_rank, &run, &recorder, r);
    }
  } else {
    bool overlap = plan.training.overlap;
    for (int r = 0; r < run.workers; ++r) {
      sg4::Host* host = run.world.rank_host[r];
      if (!overlap) {
        sg4::Actor::create("worker" + std::to_string(r), host, worker_without_overlap, &run, r);
      } else {
        auto ready = sg4::Semaphore::create(0), done = sg4::Semaphore::create(0);
        sg4::Actor::create("compute" + std::to_string(r), host, worker_compute, &run, r, ready, done);
        sg4::Actor::create("comm" + std::to_string(r), host, worker_comm, &run, r, ready, done);
      }
    }
    for (int r = run.workers; r < ranks; ++r)
      sg4::Actor::create("server" + std::to_string(r - run.workers), run.world.rank_host[r], collective_server, &run, r);
  }
  run.actors = static_cast<int>(sg4::Engine::get_instance()->get_actor_count());
  engine.run();
  if (run.finished_actors != run.actors)
    throw std::runtime_error("the simulation stopped with " + std::to_string(run.actors - run.finished_actors) +
                             " of " + std::to_string(run.actors) + " ranks still waiting (a deadlock in the strategy)");

  RunResult result;
  result.engine = "sim";
  result.fidelity = run.world.coalesce ? "fast" : "step";
  result.strategy = core::strategy_name(plan.strategy.kind);
  result.plan = plan.file;
  result.cluster = plan.cluster.name;
  result.workload = plan.workload.name;
  result.network_model = plan.cluster.network_model;
  result.workers = run.workers;
  result.servers = layout.servers;
  result.bytes = run.model.gradient_bytes();

  // A step ends when its last worker is through it. The exchange lasts, per step, as long as the
  // slowest worker's (in fast fidelity a rank with only fast links finishes early).
  std::vector<double> step_end(run.steps, 0.0), step_comm(run.steps, 0.0);
  for (const auto& worker : run.records)
    for (int s = 0; s < run.steps; ++s) {
      if (!worker[s].done) continue;
      step_end[s] = std::max(step_end[s], worker[s].end);
      step_comm[s] = std::max(step_comm[s], worker[s].comm_s);
    }
  if (ps_program && core::ps_rules(plan).blocking_pulls) {
    // Synchronous modes: step k ends when every shard reached its k-th share of the versions.
    std::int64_t last = core::ps_last_version(plan);
    for (int s = 0; s < run.steps; ++s) {
      step_end[s] = 0;
      auto v = static_cast<std::size_t>((s + 1) * last / run.steps);
      for (const auto& [shard, times] : run.version_times)
        if (v > 0 && !times.empty()) step_end[s] = std::max(step_end[s], times[std::min(v, times.size()) - 1]);
    }
    run.last_apply = std::max(run.last_apply, step_end.empty() ? 0.0 : step_end.back());
  }
  for (int s = 1; s < run.steps; ++s) step_end[s] = std::max(step_end[s], step_end[s - 1]);
  // With a PS program the run is over when the servers applied the last gradient.
  double makespan = std::max(step_end.empty() ? 0.0 : step_end.back(), run.last_apply);
  if (!step_end.empty()) step_end.back() = makespan;
  double prev = 0;
  for (int s = 0; s < run.steps; ++s) {
    result.steps.push_back({s, step_end[s] - prev});
    prev = step_end[s];
  }
  double comm_total = 0;
  for (double c : step_comm) comm_total += c;
  result.step_time_s = makespan / run.steps;
  result.phases.comm_s = comm_total / run.steps;
  // Compute per step of one nominal device without stragglers: what one worker alone would take,
  // so scaling efficiency also shows what stragglers and slower devices cost.
  result.phases.compute_s = run.model.compute_flops() / plan.cluster.device.flops;
  result.phases.exposed_comm_s = std::max(0.0, result.step_time_s - result.phases.compute_s);
  core::fill_derived(result, plan.training.batch_per_worker);
  if (ps_program) {
    result.gradients = run.gradients;
    result.staleness = core::staleness_from_histogram(run.staleness);
    // Only applied gradients train the model.
    result.throughput_samples_per_s = makespan > 0 ? run.gradients.applied * plan.training.batch_per_worker / makespan : 0;
    result.scaling_efficiency = result.throughput_samples_per_s * result.phases.compute_s /
                                (run.workers * plan.training.batch_per_worker);
  } else {
    result.gradients.applied = static_cast<long>(run.workers) * run.steps;
    result.staleness = core::staleness_from_histogram({result.gradients.applied});
  }

  double samples_per_step = static_cast<double>(run.workers) * plan.training.batch_per_worker;
  if (go_on_without) {
    result.resilience.policy = "continue_without_failed_workers";
    result.resilience.failures = static_cast<int>(plan.resilience.failures.size());
    result.resilience.left_workers = run.left_workers;
    std::sort(result.resilience.left_workers.begin(), result.resilience.left_workers.end());
    result.resilience.wall_s = makespan;
    result.resilience.goodput_samples_per_s = result.throughput_samples_per_s;
  } else {
    std::vector<double> times;
    for (const auto& s : result.steps) times.push_back(s.time_s);
    core::FailureOutcome f = core::restart_from_checkpoint(times, plan.resilience, samples_per_step);
    result.resilience = {f.policy, f.failures, f.wall_s, f.lost_work_s, f.restart_s, f.checkpoint_s,
                         f.goodput_samples_per_s, {}};
    if (ps_program) result.resilience.goodput_samples_per_s = run.gradients.applied * plan.training.batch_per_worker / f.wall_s;
  }

  std::vector<double> step_start(run.steps, 0.0);
  for (int s = 1; s < run.steps; ++s) step_start[s] = step_end[s - 1];
  result.links = link_loads(topo, run.world, step_start, step_end, run.trace);
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (run.trace)
    trace.write(options.trace_path, "sim " + result.strategy + ", " + std::to_string(run.workers) + " workers");
  return result;
}

}  // namespace scaleout::sim
