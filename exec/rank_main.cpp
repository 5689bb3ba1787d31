#include "exec/rank_main.hpp"

#include <fcntl.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/types.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstdint>

#include "core/codecs/compression.hpp"
#include "core/codecs/compression_reference.hpp"
#include "core/codecs/delay_compensation.hpp"
#include "core/model/step_model.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/plan/input_error.hpp"
#include "core/programs/check_values.hpp"
#include "core/programs/strategies/collective_training.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "core/programs/strategy.hpp"
#include "exec/cuda_backend.hpp"
#include "exec/gloo_fabric.hpp"
#include "exec/model_parallel_rank.hpp"
#include "exec/rank_steps.hpp"

namespace scaleout::exec {

namespace {

// The value a baseline's element type holds, and back, for the exact-sum check.
float as_float(float v) { return v; }
float as_float(gloo::float16 v) { return gloo::cpu_half2float(v); }
template <typename T>
T from_float(float v) {
  return T(static_cast<double>(v));
}
template <>
float from_float<float>(float v) {
  return v;
}

// Elements of the gradient (the buffer's first `elements`; a compressed exchange's scratch
// follows) that differ from what the exchange must leave: the exact sums, or `expected`.
long count_wrong(const GradientBuffer& data, std::int64_t elements,
                 const core::CheckValues& values) {
  long wrong = 0;
  for (std::int64_t i = 0; i < elements; ++i) wrong += data.get(i) != values.sum(i);
  return wrong;
}
long count_wrong(const GradientBuffer& data, const std::vector<float>& expected) {
  long wrong = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    wrong += data.get(static_cast<std::int64_t>(i)) != expected[i];
  return wrong;
}

// The step's check: the exact sums, or with compression what every worker's compressor emitted
// combined (core/codecs/compression_reference.hpp), one step after the other.
std::function<long()> step_check(const core::Plan& plan, const core::StepModel& model,
                                 const GradientBuffer& data, const core::CheckValues& values) {
  if (!plan.training.compression.on())
    return [&data, &values, n = model.elements] { return count_wrong(data, n, values); };
  auto reference = std::make_shared<core::CompressionReference>(plan, model, values);
  return [&data, reference] { return count_wrong(data, reference->next_step()); };
}

// The plan the strategy program runs: the test hook drop_error_feedback takes the compressor's
// error feedback away, and drop_delay_compensation the servers' compensation (lambda 0); the
// references keep the plan's.
core::Plan program_plan(const core::Plan& plan, const ExecOptions& options) {
  core::Plan p = plan;
  if (options.faults.drop_error_feedback) p.training.compression.error_feedback = false;
  if (options.faults.drop_delay_compensation) p.strategy.delay_compensation.lambda = 0;
  return p;
}

// The rank's buffer: the gradient, a compressed exchange's scratch and, on a compensating server
// (rank `rank` at or after the workers), the workers' pulled copies.
std::int64_t buffer_words(const core::Plan& plan, const core::StepModel& model, int rank,
                          int servers) {
  std::int64_t words = model.elements + compressed_scratch_words(plan, model);
  if (rank >= plan.training.workers)
    words += core::compensation_scratch_words(plan, model.elements, servers);
  return words;
}

// Times Gloo's algorithm `repeats` times on fresh inputs, each run started together after a
// barrier, as our steps are; the wrong elements are counted after every run.
template <template <typename> class Algorithm, typename T>
nlohmann::json time_baseline(const std::shared_ptr<gloo::Context>& context,
                             const std::shared_ptr<gloo::Context>& sync, const char* name, int rank,
                             const core::CheckValues& values, std::int64_t elements, int repeats) {
  std::vector<T> data(elements);
  Algorithm<T> algorithm(context, {data.data()}, static_cast<int>(elements));
  nlohmann::json times = nlohmann::json::array();
  long wrong = 0;
  for (int i = 0; i < repeats; ++i) {
    for (std::int64_t e = 0; e < elements; ++e) data[e] = from_float<T>(values.value(rank, e));
    gloo::BarrierAllToAll(sync).run();
    auto t0 = std::chrono::steady_clock::now();
    algorithm.run();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    gloo::BarrierAllToAll(sync).run();  // as for our steps: check once all are through
    for (std::int64_t e = 0; e < elements; ++e) wrong += as_float(data[e]) != values.sum(e);
  }
  return {{"name", name}, {"times_s", times}, {"wrong", wrong}};
}

// Gloo's own all-reduces on the same data, in the gradient's type (Gloo has no bfloat16).
template <typename T>
void time_baselines(nlohmann::json& out, const std::shared_ptr<gloo::Context>& context,
                    const std::shared_ptr<gloo::Context>& sync, int rank,
                    const core::CheckValues& values, std::int64_t elements, int repeats) {
  out.push_back(time_baseline<gloo::AllreduceRingChunked, T>(context, sync, "gloo_ring_chunked",
                                                             rank, values, elements, repeats));
  out.push_back(time_baseline<gloo::AllreduceHalvingDoubling, T>(
      context, sync, "gloo_halving_doubling", rank, values, elements, repeats));
}

// Records what the PS training program reports on this rank.
class RankObserver : public core::TrainingObserver {
 public:
  explicit RankObserver(int workers) : applied_from(workers, 0) {}
  void worker_step(int, int step, double start, double pull_end, double compute_end,
                   double end) override {
    steps.push_back({{"step", step},
                     {"start", start},
                     {"pull_end", pull_end},
                     {"compute_end", compute_end},
                     {"end", end}});
  }
  void applied(int, int worker, int staleness, double) override {
    if (static_cast<std::size_t>(staleness) >= staleness_histogram.size())
      staleness_histogram.resize(staleness + 1);
    ++staleness_histogram[staleness];
    ++applied_from[worker];
    sequence.push_back({worker, staleness});
  }
  void dropped(int, double) override { ++dropped_count; }
  void left(int, int, double) override {}
  void version_done(int, std::int64_t, double) override {}

  nlohmann::json steps = nlohmann::json::array();
  std::vector<long> staleness_histogram;
  std::vector<long> applied_from;
  std::vector<core::AppliedGradient> sequence;  // in the order the shard applied them
  long dropped_count = 0;
};

// Elements of a server's shard that differ from what it must hold: the sum of the gradients it
// accepted or, with delay compensation, the parameters replayed from the updates in the order it
// applied them (compared bit for bit: the replay runs the same arithmetic in the same order).
long wrong_in_shard(const core::Plan& plan, const GradientBuffer& data,
                    const core::CheckValues& values, core::Span mine,
                    const RankObserver& observer) {
  long wrong = 0;
  int workers = plan.training.workers;
  if (!plan.strategy.delay_compensation.on) {
    for (std::int64_t i = mine.begin; i < mine.end(); ++i) {
      float expected = 0;
      for (int w = 0; w < workers; ++w)
        expected += static_cast<float>(observer.applied_from[w]) * values.value(w, i);
      wrong += data.get(i) != expected;
    }
    return wrong;
  }
  std::vector<float> expected = core::replay_compensated_shard(
      plan.strategy.delay_compensation, mine.count, observer.sequence,
      [&](int w, std::int64_t i) { return values.value(w, mine.begin + i); });
  for (std::int64_t i = 0; i < mine.count; ++i)
    wrong += std::bit_cast<std::uint32_t>(data.get(mine.begin + i)) !=
             std::bit_cast<std::uint32_t>(expected[i]);
  return wrong;
}

// The parameter server as a training program (async, backup workers, softsync): workers produce
// known gradients; each server ends holding the sum of the gradients it accepted, and checks it.
nlohmann::json run_ps_training(const core::Plan& plan, const ExecOptions& options,
                               const RankSetup& setup, GlooFabric& fabric,
                               const GradientBuffer& data, const core::CheckValues& values,
                               int servers) {
  int workers = plan.training.workers;
  core::StepModel model = executed_model(plan, options);
  core::PsTraining program(program_plan(plan, options), model, workers, servers, {}, {});
  bool worker = setup.rank < workers;
  RankObserver observer(workers);
  program.run(fabric, observer);
  // A worker is through when its last push has arrived (the server applies it at once), as the
  // simulator ends the run at the last gradient applied.
  fabric.flush_messages();
  double done = fabric.now();
  long wrong = 0;
  if (!worker)
    wrong = wrong_in_shard(
        plan, data, values,
        core::split_part(core::Span{0, model.elements}, servers, setup.rank - workers), observer);
  long applied = 0;
  for (long a : observer.applied_from) applied += a;
  return {{"rank", setup.rank},
          {"role", worker ? "worker" : "server"},
          {"ps_steps", observer.steps},
          {"done", done},
          {"staleness", observer.staleness_histogram},
          {"applied", applied},
          {"dropped", observer.dropped_count},
          {"wrong", wrong},
          {"steps", nlohmann::json::array()},
          {"baselines", nlohmann::json::array()}};
}

void enter_netns(const std::string& netns) {
  if (netns.empty()) return;
  int fd = ::open(("/var/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
  bool entered = fd >= 0 && ::setns(fd, CLONE_NEWNET) == 0;
  if (fd >= 0) ::close(fd);
  if (!entered)
    throw std::runtime_error("cannot enter network namespace " + netns + " (is the cluster up?)");
}

// Connections over rails 1, 2, ... of this rank's node, one full mesh each (the strategy's own
// connections are rail 0).
std::vector<std::shared_ptr<gloo::Context>> connect_rails(gloo::rendezvous::Store& store,
                                                          const RankSetup& setup,
                                                          std::chrono::milliseconds timeout) {
  std::vector<std::shared_ptr<gloo::Context>> rails;
  for (std::size_t r = 0; r < setup.rail_hostnames.size(); ++r) {
    gloo::rendezvous::PrefixStore rail_store("strategy-rail" + std::to_string(r + 1), store);
    RankSetup on_rail = setup;
    on_rail.hostname = setup.rail_hostnames[r];
    rails.push_back(connect(rail_store, on_rail, timeout));
  }
  return rails;
}

}  // namespace

void run_rank(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
              const std::function<void(const nlohmann::json&)>& finish) {
  enter_netns(setup.netns);
  // On GPUs every rank of a model-parallel plan is a GPU rank (no parameter server may serve it).
  if (plan.parallelism && options.backend != Backend::kCuda)
    return run_model_parallel_rank(plan, options, setup, finish);
  bool ps_training = core::uses_ps_training(plan);
  // On GPUs, collectives and the synchronous parameter server go through NCCL; a parameter-server
  // training program's messages from any rank go over Gloo to CPU servers, its workers on GPUs.
  if (options.backend == Backend::kCuda && !ps_training)
    return run_cuda_rank(plan, options, setup, finish);
  int workers = plan.training.workers;
  core::RankPlan ranks = core::plan_ranks(plan);
  core::CheckValues values(workers, ps_training ? plan.training.steps + 1 : 1,
                           plan.training.gradient_precision, plan.file);
  core::StepModel model = executed_model(plan, options);

  gloo::rendezvous::FileStore store(setup.store_dir);
  gloo::rendezvous::PrefixStore ours("strategy", store);
  auto context = connect(ours, setup, options.timeout);
  // Steps start together, as nccl-tests times them: a barrier before each, on connections of its
  // own (Gloo's barrier shrinks its connections' send buffers, which would slow bulk transfers).
  gloo::rendezvous::PrefixStore sync_store("sync", store);
  auto sync = connect(sync_store, setup, options.timeout);
  GradientBuffer data(element_type(plan.training.gradient_precision),
                      buffer_words(plan, model, setup.rank, ranks.layout.servers));
  GlooFabric fabric(
      context, data, values, options.timeout,
      static_cast<std::int64_t>(plan.strategy.chunk / plan.training.gradient_bytes_per_element));
  fabric.emulate_device(options.emulated_device_flops);
  if (!setup.rail_hostnames.empty())
    fabric.stripe_over(connect_rails(store, setup, options.timeout), setup.rank_node);
  if (options.backend == Backend::kCuda && setup.rank < workers) {
    DeviceWorker device =
        make_device_worker(setup.rank, static_cast<std::int64_t>(data.bytes(data.size())));
    // One phase of the step's size first: cuBLAS loads a product's kernel at its first use, a cost
    // a job pays once, not in its first step.
    device.compute(model.compute_flops());
    fabric.use_device(std::move(device.compute), std::move(device.stage));
  }
  if (ps_training) {
    nlohmann::json report =
        run_ps_training(plan, options, setup, fabric, data, values, ranks.layout.servers);
    // Asynchronous workers finish at their own pace: one done early waits for the slowest as long
    // as the whole run may take, not one transfer's deadline.
    sync->setTimeout(options.run_timeout(plan.training.steps));
    gloo::BarrierAllToAll(sync).run();
    finish(report);
    return;
  }

  auto program = core::make_strategy(program_plan(plan, options), ranks.layout);
  StepObserver observer(
      options, sync, setup.rank < workers, [&fabric] { fabric.fill_gradient_ahead(); },
      step_check(plan, model, data, values), [&data] { data.set(0, data.get(0) + 1); });
  core::CollectiveTraining(*program, model, core::Slowdown(plan.stragglers), workers,
                           plan.training.steps, plan.training.overlap)
      .run(fabric, observer);

  nlohmann::json baselines = nlohmann::json::array();
  gloo::rendezvous::PrefixStore theirs("gloo", store);
  std::shared_ptr<gloo::Context> gloo_context;  // lives as long as the others (see finish)
  ElementType type = data.type();
  if (options.baselines && ranks.layout.servers == 0 && workers > 1 && type != ElementType::kBf16) {
    // Gloo's own algorithms, on connections of their own.
    gloo_context = connect(theirs, setup, options.timeout);
    if (type == ElementType::kFp16) {
      time_baselines<gloo::float16>(baselines, gloo_context, sync, setup.rank, values,
                                    model.elements, plan.training.steps);
    } else {
      time_baselines<float>(baselines, gloo_context, sync, setup.rank, values, model.elements,
                            plan.training.steps);
    }
  }
  gloo::BarrierAllToAll(sync).run();
  finish({{"rank", setup.rank},
          {"steps", observer.steps},
          {"phases", observer.phases},
          {"baselines", baselines}});
}

}  // namespace scaleout::exec
