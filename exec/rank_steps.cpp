#include "exec/rank_steps.hpp"

#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/codecs/compression.hpp"
#include "core/codecs/ps_codec.hpp"
#include "core/model/compute_rate.hpp"
#include "core/parallel/rank_plan.hpp"

namespace scaleout::exec {

std::shared_ptr<gloo::Context> connect(gloo::rendezvous::Store& store, const RankSetup& setup,
                                       std::chrono::milliseconds timeout) {
  gloo::transport::tcp::attr attr(setup.hostname.c_str());
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(setup.rank, setup.size);
  context->setTimeout(timeout);
  context->connectFullMesh(store, device);
  return context;
}

core::StepModel executed_model(const core::Plan& plan, const ExecOptions& options) {
  core::StepModel model = core::make_step_model(plan);
  double scale = executed_compute_scale(plan, options);
  model.forward_flops *= scale;
  model.backward_flops *= scale;
  return model;
}

// The model charges real FLOPs / efficiency. A CPU core runs the real FLOPs (times
// compute_scale) at its kernel's rate; a GPU runs the charged operations as matrix products near
// its peak, so that the phase lasts as the workload would at the plan's efficiency there. A
// measured throughput is charged as the FLOPs it implies (core/model/compute_rate.hpp).
double executed_compute_scale(const core::Plan& plan, const ExecOptions& options) {
  return options.compute_scale *
         (options.backend == Backend::kCuda ? 1.0 : core::compute_efficiency(plan));
}

void ModelParallelStepReports::step_done(int, const core::ModelParallelStepTimes& t) {
  steps.push_back({{"start", t.start - origin},
                   {"end", t.end - origin},
                   {"compute", t.compute_s},
                   {"tensor", t.tensor_s},
                   {"expert", t.expert_s},
                   {"context", t.context_s},
                   {"data", t.data_s},
                   {"wrong", t.wrong}});
}

void SpanChecks::label(core::Span s, std::uint64_t tag) {
  std::vector<float> v(static_cast<std::size_t>(s.count));
  for (std::int64_t i = 0; i < s.count; ++i) v[i] = model_parallel_label(tag, i);
  write(s, v);
}

long SpanChecks::mislabelled(core::Span s, std::uint64_t tag) const {
  std::vector<float> v = read(s);
  long wrong = 0;
  for (std::int64_t i = 0; i < s.count; ++i) wrong += v[i] != model_parallel_label(tag, i);
  return wrong;
}

void SpanChecks::fill(core::Span s, float value) {
  write(s, std::vector<float>(static_cast<std::size_t>(s.count), value));
}

long SpanChecks::differs(core::Span s, float value) const {
  std::vector<float> v = read(s);
  return static_cast<long>(std::count_if(v.begin(), v.end(), [&](float x) { return x != value; }));
}

long SpanChecks::differs_from_sum(core::Span s, const std::vector<int>& ranks) const {
  std::vector<float> v = read(s);
  long wrong = 0;
  for (std::int64_t i = 0; i < s.count; ++i) {
    float sum = 0;
    for (int r : ranks) sum += values_.value(r, s.begin + i);
    wrong += v[i] != sum;
  }
  return wrong;
}

StepObserver::StepObserver(const ExecOptions& options, std::shared_ptr<gloo::Context> sync,
                           bool worker, std::function<void()> fill_ahead,
                           std::function<long()> count_wrong, std::function<void()> corrupt_one)
    : options_(options),
      sync_(std::move(sync)),
      worker_(worker),
      fill_ahead_(std::move(fill_ahead)),
      count_wrong_(std::move(count_wrong)),
      corrupt_one_(std::move(corrupt_one)) {}

// Not Gloo's barrier, which says only "Read timeout [host]:port": a byte to every other rank and
// one from each, so that past the deadline the ranks not heard from are named.
void StepObserver::barrier(const std::string& where) {
  constexpr std::uint64_t kBarrierSlot = 0x5ca1e0b4u;  // far from the slots Gloo's own barrier uses
  const int me = sync_->rank, n = sync_->size;
  char token = 1;
  std::vector<char> arrived(n);
  std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> sends, recvs(n);
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    sends.push_back(sync_->createUnboundBuffer(&token, 1));
    sends.back()->send(r, kBarrierSlot);
    recvs[r] = sync_->createUnboundBuffer(&arrived[r], 1);
    recvs[r]->recv(r, kBarrierSlot);
  }
  auto deadline = std::chrono::steady_clock::now() + options_.timeout;
  std::string missing;
  for (int r = 0; r < n; ++r) {
    if (!recvs[r]) continue;
    auto left = std::max(std::chrono::milliseconds(1),
                         std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline - std::chrono::steady_clock::now()));
    bool ok = false;
    try {
      ok = recvs[r]->waitRecv(left);
    } catch (const std::exception&) {
    }
    if (!ok) missing += (missing.empty() ? "from rank " : ", from rank ") + std::to_string(r);
  }
  if (!missing.empty())
    throw std::runtime_error("rank " + std::to_string(me) + ": " + where + ": no arrival " +
                             missing + " within " + std::to_string(options_.timeout.count()) +
                             " ms");
  for (auto& send : sends) send->waitSend(options_.timeout);
}

void StepObserver::step_starting(int rank, int step) {
  if (rank == options_.faults.kill_rank && step == options_.faults.kill_step)
    ::kill(::getpid(), SIGKILL);
  if (rank == options_.faults.stop_rank && step == options_.faults.stop_step) ::raise(SIGSTOP);
  if (worker_) fill_ahead_();
  barrier("the barrier before step " + std::to_string(step));
}

void StepObserver::step_done(int rank, const core::StepTimes& t) {
  if (t.worker && rank == options_.faults.corrupt_rank && t.step == options_.faults.corrupt_step)
    corrupt_one_();
  // Checked once every rank is through: on a machine with fewer cores than ranks, a rank checking
  // early would take CPU from those still reducing.
  barrier("the barrier after step " + std::to_string(t.step));
  long wrong = t.worker ? count_wrong_() : 0;
  steps.push_back({{"start", t.start},
                   {"compute_end", t.compute_end},
                   {"comm_s", t.comm_s},
                   {"end", t.end},
                   {"wrong", wrong}});
}

void StepObserver::phase(int, const std::string& name, const char* category, double start,
                         double end) {
  if (!options_.trace_path.empty()) phases.push_back({name, category, start, end});
}

std::int64_t compressed_scratch_words(const core::Plan& plan, const core::StepModel& model) {
  const core::Compression& c = plan.training.compression;
  if (!c.on()) return 0;
  bool ps = plan.strategy.kind == core::StrategyKind::kPs;
  bool by_node = ps && plan.strategy.ps_local_aggregation == core::PsAggregation::kNode;
  core::RankLayout layout = by_node ? core::plan_ranks(plan).layout : core::RankLayout{};
  std::int64_t most = 0;
  for (const auto& b : model.buckets) {
    std::int64_t n = b.span.count;
    int workers = plan.training.workers;
    most = std::max(most, by_node ? core::ps_node_scratch_words(c, layout, n)
                          : ps    ? core::ps_scratch_words(c, n, workers, plan.strategy.ps_servers)
                                  : core::scratch_words(c, n, workers));
  }
  return most;
}

long count_differing(const std::vector<float>& got, const std::vector<float>& expected,
                     double tolerance) {
  float largest = 0;
  for (float e : expected) largest = std::max(largest, std::fabs(e));
  long wrong = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    bool off = tolerance > 0 ? !(std::fabs(got.at(i) - expected[i]) <= tolerance * largest)
                             : got.at(i) != expected[i];
    wrong += off;
  }
  return wrong;
}

}  // namespace scaleout::exec
