#include "sim/simulator.hpp"

#include <simgrid/s4u.hpp>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/log.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "core/atomic_file.hpp"
#include "core/input_error.hpp"
#include "core/step_model.hpp"
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
};

// Everything the actors of one simulation share.
struct Run {
  const Plan* plan = nullptr;
  core::StepModel model;
  std::unique_ptr<core::StrategyProgram> program;
  SimWorld world;
  std::vector<std::unique_ptr<SimFabric>> fabrics;
  std::vector<std::vector<StepRecord>> records;  // [worker][step]
  core::Trace* trace = nullptr;
  std::vector<int> rank_track;
  int workers = 0;
  int steps = 0;
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
void compute_step(Run& run, int rank, StepRecord& rec, const sg4::SemaphorePtr& ready) {
  rec.start = sg4::Engine::get_clock();
  sg4::this_actor::execute(run.model.forward_flops);
  double mid = sg4::Engine::get_clock();
  double done = 0;
  for (const auto& bucket : run.model.buckets) {
    double slice = (bucket.ready_fraction - done) * run.model.backward_flops;
    if (slice > 0) sg4::this_actor::execute(slice);
    done = bucket.ready_fraction;
    if (ready) ready->release();
  }
  if (done < 1) sg4::this_actor::execute((1 - done) * run.model.backward_flops);
  rec.compute_end = sg4::Engine::get_clock();
  if (run.trace) {
    run.trace->span(run.rank_track[rank], "forward", "compute", rec.start, mid - rec.start);
    run.trace->span(run.rank_track[rank], "backward", "compute", mid, rec.compute_end - mid);
  }
}

void worker_without_overlap(Run* run, int rank) {
  for (int s = 0; s < run->steps; ++s) {
    StepRecord& rec = run->records[rank][s];
    compute_step(*run, rank, rec, nullptr);
    rec.comm_s = exchange_buckets(*run, rank, s, nullptr);
    rec.end = sg4::Engine::get_clock();
  }
}

// With overlap a worker is two actors on one device: compute and communication, joined by
// semaphores (a bucket is ready; the step's exchange is over and the next forward may start).
void worker_compute(Run* run, int rank, sg4::SemaphorePtr ready, sg4::SemaphorePtr step_done) {
  for (int s = 0; s < run->steps; ++s) {
    compute_step(*run, rank, run->records[rank][s], ready);
    step_done->acquire();
  }
}

void worker_comm(Run* run, int rank, sg4::SemaphorePtr ready, sg4::SemaphorePtr step_done) {
  for (int s = 0; s < run->steps; ++s) {
    StepRecord& rec = run->records[rank][s];
    rec.comm_s = exchange_buckets(*run, rank, s, ready);
    rec.end = sg4::Engine::get_clock();
    step_done->release();
  }
}

void server(Run* run, int rank) {
  for (int s = 0; s < run->steps; ++s) exchange_buckets(*run, rank, s, nullptr);
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

  core::Topology topo = core::Topology::build(plan.cluster, core::devices_needed(plan));
  core::Placement placement = core::place_ranks(plan, topo);
  SimPlatform platform = build_platform(topo);

  Run run;
  run.plan = &plan;
  run.model = core::make_step_model(plan);
  run.workers = plan.training.workers;
  run.steps = plan.training.steps;
  core::RankLayout layout;
  layout.workers = run.workers;
  layout.servers = static_cast<int>(placement.server_device.size());
  for (int d : placement.worker_device) layout.worker_node.push_back(topo.node_of_device(d));
  run.program = core::make_strategy(plan, layout);

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
    sg4::Actor::create("server" + std::to_string(r - run.workers), run.world.rank_host[r], server, &run, r);
  engine.run();

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

  // A step ends when its last worker finishes exchanging. The exchange lasts, per step, as long
  // as the slowest worker's (in fast fidelity a rank with only fast links finishes early).
  std::vector<double> step_end(run.steps, 0.0), step_comm(run.steps, 0.0);
  double compute_total = 0;
  for (const auto& worker : run.records)
    for (int s = 0; s < run.steps; ++s) {
      step_end[s] = std::max(step_end[s], worker[s].end);
      step_comm[s] = std::max(step_comm[s], worker[s].comm_s);
      compute_total += worker[s].compute_end - worker[s].start;
    }
  double comm_total = 0;
  for (double c : step_comm) comm_total += c;
  double prev = 0;
  for (int s = 0; s < run.steps; ++s) {
    result.steps.push_back({s, step_end[s] - prev});
    prev = step_end[s];
  }
  double samples = static_cast<double>(run.workers) * run.steps;
  result.step_time_s = prev / run.steps;
  result.phases.compute_s = compute_total / samples;
  result.phases.comm_s = comm_total / run.steps;
  result.phases.exposed_comm_s = std::max(0.0, result.step_time_s - result.phases.compute_s);
  core::fill_derived(result, plan.training.batch_per_worker);

  std::vector<double> step_start(run.steps, 0.0);
  for (int s = 1; s < run.steps; ++s) step_start[s] = step_end[s - 1];
  result.links = link_loads(topo, run.world, step_start, step_end, run.trace);
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (run.trace)
    trace.write(options.trace_path, "sim " + result.strategy + ", " + std::to_string(run.workers) + " workers");
  return result;
}

SimChild start_simulation(const Plan& plan, const SimOptions& options) {
  char name[] = "/tmp/scaleout-sim-XXXXXX";
  int fd = ::mkstemp(name);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the simulation");
  ::close(fd);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot start a simulation process (fork failed)");
  if (pid == 0) {
    nlohmann::json out;
    try {
      out["result"] = core::to_json(simulate_here(plan, options));
    } catch (const core::InputError& e) {
      out["input_error"] = e.what();
    } catch (const std::exception& e) {
      out["error"] = e.what();
    }
    std::ofstream(name) << out.dump();
    std::_Exit(0);
  }
  return SimChild{pid, name};
}

RunResult finish_simulation(const SimChild& child) {
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  return collect_simulation(child, status);
}

RunResult collect_simulation(const SimChild& child, int status) {
  std::ifstream in(child.result_file);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(child.result_file);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.str().empty()) {
    std::string why = WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                          : "exit code " + std::to_string(WEXITSTATUS(status));
    throw std::runtime_error("the simulation process failed (" + why + ")");
  }
  auto out = nlohmann::json::parse(text.str());
  if (out.contains("input_error")) throw core::InputError(out["input_error"].get<std::string>());
  if (out.contains("error")) throw std::runtime_error("simulation failed: " + out["error"].get<std::string>());
  return core::result_from_json(out.at("result"));
}

RunResult simulate(const Plan& plan, const SimOptions& options) {
  return finish_simulation(start_simulation(plan, options));
}

}  // namespace scaleout::sim
