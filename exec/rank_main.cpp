#include "exec/rank_main.hpp"

#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>

#include "core/input_error.hpp"
#include "core/step_model.hpp"
#include "core/strategies/ps_training.hpp"
#include "core/strategy.hpp"
#include "core/topology.hpp"
#include "exec/gloo_fabric.hpp"

namespace scaleout::exec {

namespace {

// Small integers: sums over thousands of ranks stay exact in float.
float initial_value(int rank, std::int64_t i) { return static_cast<float>((rank + 1) * (i % 5 + 1)); }

long count_wrong(const std::vector<float>& data, int workers) {
  long wrong = 0;
  float ranks_sum = static_cast<float>(workers) * (workers + 1) / 2;
  for (std::size_t i = 0; i < data.size(); ++i)
    if (data[i] != ranks_sum * static_cast<float>(i % 5 + 1)) ++wrong;
  return wrong;
}

void fill(std::vector<float>& data, int rank, bool worker) {
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = worker ? initial_value(rank, i) : 0.0f;
}

std::shared_ptr<gloo::Context> connect(gloo::rendezvous::Store& store, const RankSetup& setup,
                                       std::chrono::milliseconds timeout) {
  gloo::transport::tcp::attr attr(setup.hostname.c_str());
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(setup.rank, setup.size);
  context->setTimeout(timeout);
  context->connectFullMesh(store, device);
  return context;
}

// Times Gloo's algorithm `repeats` times on fresh inputs, each run started together after a
// barrier, as our steps are; the wrong elements are counted after every run.
template <typename Algorithm>
nlohmann::json time_baseline(const std::shared_ptr<gloo::Context>& context, const std::shared_ptr<gloo::Context>& sync,
                             const char* name, int rank, int workers, std::int64_t elements, int repeats) {
  std::vector<float> data(elements);
  Algorithm algorithm(context, {data.data()}, static_cast<int>(elements));
  nlohmann::json times = nlohmann::json::array();
  long wrong = 0;
  for (int i = 0; i < repeats; ++i) {
    fill(data, rank, true);
    gloo::BarrierAllToAll(sync).run();
    auto t0 = std::chrono::steady_clock::now();
    algorithm.run();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    gloo::BarrierAllToAll(sync).run();  // as for our steps: check once all are through
    wrong += count_wrong(data, workers);
  }
  return {{"name", name}, {"times_s", times}, {"wrong", wrong}};
}

// Records what the PS training program reports on this rank.
class RankObserver : public core::TrainingObserver {
 public:
  explicit RankObserver(int workers) : applied_from(workers, 0) {}
  void worker_step(int, int step, double start, double pull_end, double compute_end, double end) override {
    steps.push_back({{"step", step}, {"start", start}, {"pull_end", pull_end}, {"compute_end", compute_end}, {"end", end}});
  }
  void applied(int, int worker, int staleness, double) override {
    if (static_cast<std::size_t>(staleness) >= staleness_histogram.size()) staleness_histogram.resize(staleness + 1);
    ++staleness_histogram[staleness];
    ++applied_from[worker];
  }
  void dropped(int, double) override { ++dropped_count; }
  void left(int, int, double) override {}
  void version_done(int, std::int64_t, double) override {}

  nlohmann::json steps = nlohmann::json::array();
  std::vector<long> staleness_histogram;
  std::vector<long> applied_from;
  long dropped_count = 0;
};

// The parameter server as a training program (async, backup workers, softsync): workers produce
// known gradients; each server ends holding the sum of the gradients it accepted, and checks it.
nlohmann::json run_ps_training(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
                               GlooFabric& fabric, std::vector<float>& data, int servers) {
  int workers = plan.training.workers;
  core::StepModel model = core::make_step_model(plan);
  // Executed, a step computes compute_scale of the plan's (real, not efficiency-adjusted) FLOPs.
  double scale = plan.workload.efficiency * options.compute_scale;
  model.forward_flops *= scale;
  model.backward_flops *= scale;
  core::PsTraining program(plan, model, workers, servers, {}, {});
  bool worker = setup.rank < workers;
  fill(data, setup.rank, false);
  if (worker) fabric.set_gradient_producer([rank = setup.rank](std::vector<float>& d) { fill(d, rank, true); });
  RankObserver observer(workers);
  program.run(fabric, observer);
  // A worker is through when its last push has arrived (the server applies it at once), as the
  // simulator ends the run at the last gradient applied.
  fabric.flush_messages();
  double done = fabric.now();
  long wrong = 0;
  if (!worker) {
    core::Span mine = core::split_part(core::Span{0, model.elements}, servers, setup.rank - workers);
    for (std::int64_t i = mine.begin; i < mine.end(); ++i) {
      float expected = 0;
      for (int w = 0; w < workers; ++w) expected += static_cast<float>(observer.applied_from[w]) * initial_value(w, i);
      wrong += data[i] != expected;
    }
  }
  long applied = 0;
  for (long a : observer.applied_from) applied += a;
  return {{"rank", setup.rank},  {"role", worker ? "worker" : "server"}, {"ps_steps", observer.steps}, {"done", done},
          {"staleness", observer.staleness_histogram}, {"applied", applied}, {"dropped", observer.dropped_count},
          {"wrong", wrong}, {"steps", nlohmann::json::array()}, {"baselines", nlohmann::json::array()}};
}

}  // namespace

void run_rank(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
              const std::function<void(const nlohmann::json&)>& finish) {
  if (!setup.netns.empty()) {
    int fd = ::open(("/var/run/netns/" + setup.netns).c_str(), O_RDONLY | O_CLOEXEC);
    bool entered = fd >= 0 && ::setns(fd, CLONE_NEWNET) == 0;
    if (fd >= 0) ::close(fd);
    if (!entered) throw std::runtime_error("cannot enter network namespace " + setup.netns + " (is the cluster up?)");
  }
  int workers = plan.training.workers;
  core::Topology topo = core::Topology::build(plan.cluster, core::devices_needed(plan));
  core::Placement placement = core::place_ranks(plan, topo);
  core::RankLayout layout{workers, static_cast<int>(placement.server_device.size()), {}};
  for (int d : placement.worker_device) layout.worker_node.push_back(topo.node_of_device(d));
  auto program = core::uses_ps_training(plan) ? nullptr : core::make_strategy(plan, layout);
  core::StepModel model = core::make_step_model(plan);

  gloo::rendezvous::FileStore store(setup.store_dir);
  gloo::rendezvous::PrefixStore ours("strategy", store);
  auto context = connect(ours, setup, options.timeout);
  // Steps start together, as nccl-tests times them: a barrier before each, on connections of its
  // own (Gloo's barrier shrinks its connections' send buffers, which would slow bulk transfers).
  gloo::rendezvous::PrefixStore sync_store("sync", store);
  auto sync = connect(sync_store, setup, options.timeout);
  bool worker = setup.rank < workers;
  std::vector<float> data(model.elements);
  GlooFabric fabric(context, data, options.timeout,
                    static_cast<std::int64_t>(plan.strategy.chunk / plan.training.gradient_bytes_per_element));
  if (core::uses_ps_training(plan)) {
    nlohmann::json report = run_ps_training(plan, options, setup, fabric, data, layout.servers);
    // Asynchronous workers finish at their own pace: one done early waits for the slowest as long
    // as the whole run may take, not one transfer's deadline.
    sync->setTimeout(options.run_timeout(plan.training.steps));
    gloo::BarrierAllToAll(sync).run();
    finish(report);
    return;
  }

  nlohmann::json steps = nlohmann::json::array();
  for (int s = 0; s < plan.training.steps; ++s) {
    if (setup.rank == options.kill_rank && s == options.kill_step) ::kill(::getpid(), SIGKILL);
    fill(data, setup.rank, worker);
    gloo::BarrierAllToAll(sync).run();
    double start = fabric.now();
    if (worker) fabric.compute(model.compute_flops() * plan.workload.efficiency * options.compute_scale);
    double compute_end = fabric.now();
    for (const auto& bucket : model.buckets) {
      program->run(fabric, bucket.span);
      fabric.reset();
    }
    double end = fabric.now();
    // Checked once every rank is through: on a machine with fewer cores than ranks, a rank checking
    // early would take CPU from those still reducing.
    gloo::BarrierAllToAll(sync).run();
    long wrong = worker ? count_wrong(data, workers) : 0;
    steps.push_back({{"start", start}, {"compute_end", compute_end}, {"end", end}, {"wrong", wrong}});
  }

  nlohmann::json baselines = nlohmann::json::array();
  gloo::rendezvous::PrefixStore theirs("gloo", store);
  std::shared_ptr<gloo::Context> gloo_context;  // lives as long as the others (see finish)
  if (options.baselines && layout.servers == 0 && workers > 1) {
    // Gloo's own algorithms, on connections of their own.
    gloo_context = connect(theirs, setup, options.timeout);
    baselines.push_back(time_baseline<gloo::AllreduceRingChunked<float>>(gloo_context, sync, "gloo_ring_chunked",
                                                                          setup.rank, workers, model.elements,
                                                                          plan.training.steps));
    baselines.push_back(time_baseline<gloo::AllreduceHalvingDoubling<float>>(
        gloo_context, sync, "gloo_halving_doubling", setup.rank, workers, model.elements, plan.training.steps));
  }
  gloo::BarrierAllToAll(sync).run();
  finish({{"rank", setup.rank}, {"steps", steps}, {"baselines", baselines}});
}

}  // namespace scaleout::exec
