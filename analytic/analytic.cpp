#include "analytic/analytic.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "analytic/analytic_model_parallel.hpp"
#include "analytic/analytic_node_fabric.hpp"
#include "analytic/analytic_ps.hpp"
#include "analytic/analytic_tree.hpp"
#include "core/codecs/compression.hpp"
#include "core/codecs/delay_compensation.hpp"
#include "core/codecs/powersgd_codec.hpp"
#include "core/codecs/ps_codec.hpp"
#include "core/model/host_costs.hpp"
#include "core/model/network_factors.hpp"
#include "core/model/overlap_slowdown.hpp"
#include "core/model/step_model.hpp"
#include "core/model/transport.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/plan/input_error.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "core/programs/strategy.hpp"
#include "core/reliability/failure_model.hpp"
#include "core/reliability/goodput.hpp"
#include "core/reliability/slowdown.hpp"

namespace scaleout::sim {

using core::Plan;
using core::RunResult;

namespace {

// SimGrid's LV08 corrections (TCP-like): latency x13.01, every flow's bandwidth x0.97, and
// cross-traffic: each flow loads its reverse path with 5% (the acknowledgements), so where every
// rank sends and receives at once each link direction carries 1.05 flows' worth per flow.
constexpr double kLv08Latency = 13.01;
constexpr int kListedSteps = 1000;
constexpr double kLv08Bandwidth = 0.97;
constexpr double kLv08CrossTraffic = 1.05;

// Ranks 0..workers-1 sit on devices 0..workers-1 (nodes filled in order); servers after them.
struct Layout {
  const core::Topology* topo;
  int workers;
  double nic_bw;  // each node's NIC (0 when the cluster has no uniform NIC)
  double latency_factor, bandwidth_factor, cross_traffic;
  bool intra_shared = false;  // nodes are PCIe trees: count flows on their links too
  // Factors by message size (ib): replace the two above.
  const core::NetworkFactors* sized = nullptr;
  core::HostCosts host;       // software costs of messages between nodes
  core::Transport transport;  // TCP's window on every flow, MPI's rendezvous between nodes
};

// Whether a step adds what it receives (reduce-scatter, halving) or overwrites (all-gather).
enum class Sums { kNo, kYes };

// One step of a pattern in which every rank r sends `bytes` to partner(r) at once (partner(r) < 0:
// r sends nothing). The step lasts as long as its slowest flow: latency plus bytes at the flow's
// rate, where flows leaving (entering) one node share its NIC, plus, between nodes, the host's
// costs (the sender's overhead and copy, the receiver's sum when the step `sums`). Looks at the
// first and the last node's ranks, which covers the distinct cases of the regular patterns used
// here. `both_ways`: every rank also receives while it sends (exchanges), so cross-traffic applies.
double pattern_step(const Layout& L, const std::function<int(int)>& partner, double bytes,
                    Sums sums, bool both_ways = true) {
  const core::Topology& t = *L.topo;
  auto node_of = [&](int r) { return t.node_of_device(r); };
  auto share_out = [&](int node) {
    int n = 0;
    int first = t.first_device(node), last = std::min(L.workers, first + t.devices_on_node(node));
    for (int r = first; r < last; ++r) {
      int p = partner(r);
      if (p >= 0 && node_of(p) != node) ++n;
    }
    return std::max(1, n);
  };
  double worst = 0;
  int last_node = node_of(L.workers - 1);
  std::optional<IntraNodeLoad> intra;
  if (L.intra_shared) intra.emplace(t, L.workers, partner, std::vector<int>{0, last_node});
  for (int node : {0, last_node}) {
    int first = t.first_device(node), last = std::min(L.workers, first + t.devices_on_node(node));
    int out = share_out(node);
    for (int r = first; r < last; ++r) {
      int p = partner(r);
      if (p < 0 || p == r) continue;
      core::Topology::Cost cost = t.device_cost(r, p);
      double shared = cost.bandwidth;
      if (node_of(p) != node && L.nic_bw > 0) {
        int in = share_out(node_of(p));  // regular patterns: as many enter a node as leave it
        shared = std::min(shared, L.nic_bw / std::max(out, in));
      }
      if (intra) shared = std::min(shared, intra->rate(r, p));
      // LV08's bandwidth factor scales every flow's rate, shared or alone.
      double bandwidth_factor = L.bandwidth_factor, latency_factor = L.latency_factor;
      if (L.sized) {  // each rail's message is a share of the flow, and sized on its own
        double message = node_of(p) != node ? bytes / t.rails() : bytes;
        bandwidth_factor = L.sized->bandwidth.at(message);
        latency_factor = L.sized->latency.at(message);
      }
      // The window binds a flow that the links would let go faster (the model's factor applies);
      // between nodes a transfer is striped over the rails, a window each.
      double window =
          core::window_rate(L.transport, cost.latency, node_of(p) != node ? t.rails() : 1) *
          bandwidth_factor;
      double rate =
          std::min(shared * bandwidth_factor / (both_ways ? L.cross_traffic : 1.0), window);
      double latency = cost.latency * latency_factor, host = 0;
      if (node_of(p) != node)
        host = core::host_step_time(L.host, bytes, sums == Sums::kYes) +
               core::rendezvous_seconds(L.transport, bytes, latency);
      worst = std::max(worst, latency + bytes / rate + host);
    }
  }
  return worst;
}

double ring_phase(const Layout& L, int steps, double bytes, const std::function<int(int)>& partner,
                  Sums sums) {
  return steps > 0 ? steps * pattern_step(L, partner, bytes, sums) : 0.0;
}

// A ring all-reduce of `steps` + 1 members: the reduce-scatter's steps sum, the all-gather's not.
double ring_allreduce_phase(const Layout& L, int steps, double bytes,
                            const std::function<int(int)>& partner) {
  return ring_phase(L, steps, bytes, partner, Sums::kYes) +
         ring_phase(L, steps, bytes, partner, Sums::kNo);
}

double ring_allreduce(const Layout& L, int n, double bytes) {
  return ring_allreduce_phase(L, n - 1, bytes / n, [n](int r) { return (r + 1) % n; });
}

// The compressed ring (core/codecs/compression.hpp): the codec's work at the device's rates, then
// the sparse blocks' all-gather (shared random-k: its values' all-reduce; all-gathered codes: the
// encoded buckets' all-gather), or the encoded parts' n-1 rounds of direct sends (round s to
// rank + s) and their all-gather, as the program runs them.
double compressed_ring(const Layout& L, const Plan& plan, std::int64_t count) {
  const core::Compression& c = plan.training.compression;
  int n = L.workers;
  double codec = core::codec_seconds(c, plan.cluster.device, count, n).total();
  auto next = [n](int r) { return (r + 1) % n; };
  if (c.shared_draw()) return codec + ring_allreduce(L, n, 4.0 * core::sparse_count(c, count));
  if (c.gathered())
    return codec + ring_phase(L, n - 1, 4.0 * core::quantized_words(c, count), next, Sums::kNo);
  if (c.sparse())
    return codec + ring_phase(L, n - 1, 8.0 * core::sparse_count(c, count), next, Sums::kNo);
  // Parts of `slot` bytes to their owners, then the owners' results all-gathered.
  auto to_owners_and_gather = [&](double slot) {
    double direct = 0;
    for (int s = 1; s < n; ++s)
      direct += pattern_step(
          L, [n, s](int r) { return (r + s) % n; }, slot, Sums::kNo);
    return direct + ring_phase(L, n - 1, slot, next, Sums::kNo);
  };
  if (c.kind == core::CompressionKind::kPowersgd) {  // P's all-reduce, then Q's
    core::LowRankCodec low_rank(c, n, count);
    return codec + to_owners_and_gather(4.0 * low_rank.p_slot()) +
           to_owners_and_gather(4.0 * low_rank.q_slot());
  }
  return codec + to_owners_and_gather(4.0 * core::quantized_slot_words(c, count, n));
}

double torus2d(const Layout& L, std::array<int, 2> grid, double bytes) {
  int x = grid[0], y = grid[1], n = x * y;
  auto row_next = [x](int r) { return r / x * x + (r % x + 1) % x; };
  auto col_next = [x, n](int r) { return (r + x) % n; };
  double row = ring_allreduce_phase(L, x - 1, bytes / x, row_next);  // reduce-scatter, all-gather
  double col = ring_allreduce_phase(L, y - 1, bytes / x / y, col_next);
  return row + col;
}

double hierarchical(const Layout& L, const Plan& plan, double bytes) {
  const core::Topology& t = *L.topo;
  int g = std::min(L.workers, t.devices_on_node(0));
  if (L.workers % g != 0)
    throw core::InputError(plan.file, plan.training.workers_line, "training.workers",
                           "hierarchical_ring needs the same number of workers on every node; " +
                               std::to_string(L.workers) + " workers do not fill whole nodes");
  int m = L.workers / g;
  auto inside = [g](int r) { return r / g * g + (r % g + 1) % g; };
  auto across = [g, n = L.workers](int r) { return (r + g) % n; };
  return ring_allreduce_phase(L, g - 1, bytes / g, inside) +
         ring_allreduce_phase(L, m - 1, bytes / g / m, across);
}

double halving_doubling(const Layout& L, int n, double bytes) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  int extra = n - p;
  auto rank_of = [extra](int i) { return i < extra ? 2 * i : i + extra; };
  auto index_of = [extra](int r) { return r < 2 * extra ? (r % 2 ? -1 : r / 2) : r - extra; };
  double total = 0;
  if (extra > 0) {  // fold in (summed) and out: odd ranks below 2*extra pair with the even below
    auto fold = [extra](int r) { return r < 2 * extra ? (r ^ 1) : -1; };
    total += pattern_step(L, fold, bytes, Sums::kYes) + pattern_step(L, fold, bytes, Sums::kNo);
  }
  double chunk = bytes;
  for (int d = 1; d < p; d <<= 1) {
    chunk /= 2;
    auto partner = [&, d](int r) {
      int i = index_of(r);
      return i < 0 ? -1 : rank_of(i ^ d);
    };
    // once halving (summed), once doubling
    total +=
        pattern_step(L, partner, chunk, Sums::kYes) + pattern_step(L, partner, chunk, Sums::kNo);
  }
  return total;
}

// The closed forms in analytic_tree.cpp see the layout as a LinkModel.
LinkModel links_of(const Layout& L) {
  return {L.topo,          L.workers, L.nic_bw,   L.latency_factor, L.bandwidth_factor,
          L.cross_traffic, L.host,    L.transport};
}

// BytePS's layout (core/programs/strategies/compressed_ps_local.cpp): the node's dense
// reduce-scatter and all-gather around worker 0's encoded pieces pushed and pulled, the busiest
// worker's codec and the busiest server's combination between them.
double compressed_ps_per_node(const PsInputs& in, const Plan& plan, std::int64_t count) {
  core::RankPlan ranks = core::plan_ranks(plan);
  core::PsNodeBucket b = core::ps_node_bucket(plan, ranks.layout, count);
  double dense = 4.0 * static_cast<double>(std::max<std::int64_t>(1, b.part_elements));
  return b.worker_codec_s + b.server_codec_s +
         parameter_server_extended(in, plan, 4.0 * static_cast<double>(count), b.push_bytes / dense,
                                   b.pull_bytes / dense);
}

// The compressed synchronous PS (core/codecs/ps_codec.hpp): a worker encodes every shard, the
// servers combine the pushes at once, a worker decodes every pull; the first shard (the largest)
// pushed and pulled at its compressed sizes.
double compressed_ps(const PsInputs& in, const Plan& plan, std::int64_t count) {
  const core::Compression& c = plan.training.compression;
  int servers = plan.strategy.ps_servers;
  if (plan.strategy.ps_local_aggregation == core::PsAggregation::kNode)
    return compressed_ps_per_node(in, plan, count);
  core::DeviceSpec server = core::ps_server_codec_device(plan);
  double codec = 0, reduce = 0;
  for (int j = 0; j < servers; ++j) {
    std::int64_t shard = core::split_part(core::Span{0, count}, servers, j).count;
    core::PsCodecSeconds s = core::ps_codec_seconds(c, plan.cluster.device, shard, in.workers);
    codec += s.encode + s.decode;
    reduce = std::max(reduce, core::ps_codec_seconds(c, server, shard, in.workers).reduce);
  }
  std::int64_t first = core::split_part(core::Span{0, count}, servers, 0).count;
  core::PsShardCodec shard(c, in.workers, first);
  double pull = shard.dense_pull() ? static_cast<double>(first) : shard.pull_words();
  if (plan.cluster.host.any())  // each message's host time: the encoded sizes' share of dense
    return codec + reduce +
           parameter_server_extended(in, plan, 4.0 * static_cast<double>(count),
                                     static_cast<double>(shard.push_words()) / first, pull / first);
  return codec + reduce +
         parameter_server_plain(in, plan, 4.0 * static_cast<double>(shard.push_words()),
                                4.0 * pull);
}

double parameter_server(const Layout& L, const Plan& plan, double bytes) {
  PsInputs in{L.topo, L.workers, L.nic_bw, L.latency_factor, L.bandwidth_factor, L.cross_traffic};
  if (plan.training.compression.on())  // validated: plain PS only (core/plan/plan_validation.cpp)
    return compressed_ps(in, plan, std::llround(bytes / plan.training.gradient_bytes_per_element));
  return ps_needs_extended_form(plan) ? parameter_server_extended(in, plan, bytes)
                                      : parameter_server_plain(in, plan, bytes);
}

}  // namespace

AnalyticModel::AnalyticModel(const core::Cluster& cluster, int max_devices)
    : cluster_(cluster), topo_(core::Topology::build(cluster, max_devices)) {
  if (cluster.network_model == "lv08") {
    latency_factor_ = kLv08Latency;
    bandwidth_factor_ = kLv08Bandwidth;
    cross_traffic_ = kLv08CrossTraffic;
  }
  if (cluster.network_model == "ib") {
    sized_ = core::network_factors("ib");
    cross_traffic_ = sized_.cross_traffic;
  }
  if (cluster.latency_factor) latency_factor_ = *cluster.latency_factor;  // the plan's own
}

double AnalyticModel::exchange_time(const Plan& plan, double bytes) const {
  int n = plan.training.workers;
  if (n < 2 && plan.strategy.kind != core::StrategyKind::kPs) return 0;
  Layout L{&topo_,
           n,
           cluster_.network.kind == core::NetworkKind::kExplicit
               ? 0.0
               : cluster_.nic.bandwidth * cluster_.nics_per_node,  // striped over the rails
           latency_factor_,
           bandwidth_factor_,
           cross_traffic_,
           intra_node_shared(cluster_),
           sized_.by_size ? &sized_ : nullptr,
           cluster_.host,
           cluster_.transport};
  switch (plan.strategy.kind) {
    case core::StrategyKind::kRing:
      if (plan.training.compression.on())
        return compressed_ring(L, plan,
                               std::llround(bytes / plan.training.gradient_bytes_per_element));
      return ring_allreduce(L, n, bytes);
    case core::StrategyKind::kTorus2d:
      return torus2d(L, core::torus_grid(plan.strategy, n), bytes);
    case core::StrategyKind::kHierarchicalRing:
      return hierarchical(L, plan, bytes);
    case core::StrategyKind::kHalvingDoubling:
      return halving_doubling(L, n, bytes);
    case core::StrategyKind::kTree:
      return tree_time(links_of(L), bytes, plan.strategy.chunk);
    case core::StrategyKind::kHierarchicalAllreduce:
      return hierarchical_allreduce_time(links_of(L), bytes, plan.strategy.chunk);
    case core::StrategyKind::kHierarchicalHalvingDoubling:
      return hierarchical_halving_doubling_time(links_of(L), bytes, plan.strategy.chunk);
    case core::StrategyKind::kPs:
      return parameter_server(L, plan, bytes);
  }
  return 0;
}

namespace {

// Expected compute stretch of a synchronous step: the step waits for the `k`-th fastest of the N
// workers (k = N without backup workers). Exponential slowdowns have the closed form
// E[k-th order statistic of N Exp(m)] = m (H_N - H_{N-k}); other distributions average the very
// draws the simulator uses; fixed slow workers stretch the step when they are among the k needed.
double sync_stretch(const Plan& plan, int k) {
  const core::Stragglers& st = plan.stragglers;
  int n = plan.training.workers;
  int slow = 0;
  for (int w : st.slow_workers) slow += w < n;
  double fixed = slow > n - k ? st.slow_factor : 1.0;
  if (st.random == core::SlowdownKind::kNone) return fixed;
  if (st.random == core::SlowdownKind::kExponential && slow == 0) {
    double h = 0;
    for (int i = n - k + 1; i <= n; ++i) h += 1.0 / i;
    return 1 + st.mean * h;
  }
  core::Slowdown draws(st);
  double sum = 0;
  std::vector<double> f(n);
  for (int s = 0; s < plan.training.steps; ++s) {
    for (int w = 0; w < n; ++w) f[w] = draws.factor(w, s);
    std::nth_element(f.begin(), f.begin() + (k - 1), f.end());
    sum += f[k - 1];
  }
  return sum / plan.training.steps;
}

// Mean compute stretch of one worker (asynchronous workers do not wait for the slowest).
double mean_stretch(const Plan& plan) {
  const core::Stragglers& st = plan.stragglers;
  int n = plan.training.workers;
  core::Slowdown draws(st);
  double sum = 0;
  for (int s = 0; s < plan.training.steps; ++s)
    for (int w = 0; w < n; ++w) sum += draws.factor(w, s);
  return sum / (static_cast<double>(n) * plan.training.steps);
}

}  // namespace

// The keys every analytic result shares, from a step time that holds for every step; `applied`
// gradients of `batch` samples train the model each step.
RunResult AnalyticModel::assemble(const Plan& plan, const core::StepModel& m, double step,
                                  double comm, int applied_per_step) const {
  RunResult r = core::result_header(
      plan, "analytic", cluster_.network_model,
      plan.strategy.kind == core::StrategyKind::kPs ? plan.strategy.ps_servers : 0);
  r.phases.compute_s = m.compute_flops() / cluster_.device.flops;  // nominal, as the simulator
  r.phases.comm_s = comm;
  r.step_time_s = step;
  // Every step takes the same time: list at most kListedSteps of them, so that a result's size
  // and the engine's cost do not grow with the steps.
  for (int s = 0; s < std::min(plan.training.steps, kListedSteps); ++s)
    r.steps.push_back({s, step});
  if (plan.training.steps > kListedSteps)
    r.warnings.push_back("the steps list holds the first " + std::to_string(kListedSteps) + " of " +
                         std::to_string(plan.training.steps) + " steps, all alike");
  core::fill_derived(r, plan.training.batch_per_worker);
  r.gradients.applied = static_cast<long>(applied_per_step) * plan.training.steps;
  // Only applied gradients train the model.
  core::derive_from_applied(r, plan.training.batch_per_worker, r.gradients.applied,
                            step * plan.training.steps);
  r.staleness = core::staleness_from_histogram({r.gradients.applied});
  r.resilience = core::restart_uniform_steps(
      plan.training.steps, step, plan.resilience,
      static_cast<double>(applied_per_step) * plan.training.batch_per_worker);
  if (plan.reliability) r.reliability = core::reliability_outcome(plan, step);
  return r;
}

RunResult AnalyticModel::predict(const Plan& plan) const {
  if (plan.parallelism) return predict_model_parallel(plan);
  RunResult r = predict_closed_form(plan);
  auto model = analytic_warnings(plan);
  auto costs = ps_extended_warnings(plan);
  model.insert(model.end(), costs.begin(), costs.end());
  r.warnings.insert(r.warnings.begin(), model.begin(), model.end());
  return r;
}

RunResult AnalyticModel::predict_closed_form(const Plan& plan) const {
  auto wall0 = std::chrono::steady_clock::now();
  if (core::devices_needed(plan) > topo_.num_devices())
    throw core::InputError(plan.file, plan.training.workers_line, "training.workers",
                           "more workers than the cluster has devices");
  core::StepModel m = core::make_step_model(plan);
  int n = plan.training.workers;
  double slowest = topo_.slowest_device_flops(n);
  core::PsRules rules = core::ps_rules(plan);
  bool ps_program = core::uses_ps_training(plan);
  int k = ps_program && rules.drop_stale ? rules.aggregate : n;
  double stretch = sync_stretch(plan, k);
  double forward = m.forward_flops / slowest * stretch,
         backward = m.backward_flops / slowest * stretch;
  if (ps_program && !rules.drop_stale) return predict_async_ps(plan, m, slowest);
  // Buckets leave in order, each once ready and once the previous one is through. A compressed
  // exchange's codec work runs on the worker's device: one that starts while backward runs
  // delays the rest of backward by its seconds (as the simulator's stream: sim/sim_fabric.cpp);
  // so does the slowdown of the backward that an exchange runs beside
  // (core/model/overlap_slowdown.hpp).
  double comm_free = 0, comm = 0, delay = 0;
  double last_bytes = -1, t = 0, codec = 0;  // buckets of one size (most of them) cost the same
  double slowdown = plan.cluster.device.overlap_slowdown;
  for (const auto& b : m.buckets) {
    double bytes = static_cast<double>(b.span.count) * m.bytes_per_element;
    if (bytes != last_bytes) {
      t = exchange_time(plan, bytes), last_bytes = bytes;
      codec = core::worker_codec_seconds(plan, b.span.count);
    }
    double start = std::max(comm_free, forward + m.leaves_at(b.ready_fraction * backward) + delay);
    if (start < forward + backward + delay) delay += codec;
    delay += core::overlap_penalty(forward + backward + delay - start, t, slowdown);
    comm_free = start + t;
    comm += t;
  }
  RunResult r = assemble(plan, m, std::max(forward + backward + delay, comm_free), comm, k);
  r.gradients.dropped = static_cast<long>(n - k) * plan.training.steps;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

RunResult AnalyticModel::predict_async_ps(const Plan& plan, const core::StepModel& m,
                                          double flops) const {
  // Identical workers loop pull, compute, push without waiting for each other. A cycle takes the
  // worker's own pull + compute + push, unless the servers' links are the bottleneck: they carry
  // N shards of S/k each way per cycle, pushes in while pulls go out (the links are full duplex
  // and the workers out of step). Each gradient then finds the N-1 others applied since its pull
  // (per shard), so mean staleness is N-1 (at most the bound, with one).
  int n = plan.training.workers;
  double bytes = m.gradient_bytes();
  double exchange =
      exchange_time(plan, bytes) / 2;  // synchronous PS: push, then pull; here at once
  Plan one = plan;
  one.training.workers = 1;
  double compute = m.compute_flops() / flops * mean_stretch(plan);
  // Delay compensation: a server applies each push (and copies what the pull takes) before it
  // serves the next, so its N pushes a cycle take N times that beside the transfers.
  double serve = 0;
  if (auto c = core::compensation_cost(plan)) serve = c->update_s;
  double own = compute + exchange_time(one, bytes) + serve;
  double servers_busy = exchange + n * serve, cycle = std::max(own, servers_busy);
  // The run starts with every worker pulling at once (N shards over each server's link) and the
  // workers starting one after another over one compute time; the simulator's step is the run's
  // makespan over the steps, so that start counts once (left out, it was up to 10% fast).
  double start = std::max(m.compute_flops() / plan.cluster.device.flops * (n - 1) / n, exchange);
  double step = cycle + start / plan.training.steps;
  RunResult r = assemble(plan, m, step, cycle - compute, n);
  // Near the crossover of the worker's own cycle and the servers' links, workers meet at the
  // servers and wait, which the max() leaves out (seen 9-13% fast within 1.3x of it).
  if (std::max(own, servers_busy) < 1.5 * std::min(own, servers_busy))
    r.warnings.push_back(
        "the asynchronous PS is near the crossover of its workers' own cycle and the servers' "
        "links, where workers queue at the servers (the closed form was seen 9-13% fast there): "
        "use --engine sim");
  double mean = n - 1;
  if (plan.strategy.staleness_bound >= 0)
    mean = std::min(mean, static_cast<double>(plan.strategy.staleness_bound));
  r.staleness = {};  // the closed form gives the mean, not a histogram
  r.staleness.mean = mean;
  r.staleness.p50 = static_cast<int>(std::lround(mean));
  r.staleness.p99 = r.staleness.max = static_cast<int>(std::lround(mean));
  return r;
}

RunResult predict_analytic(const Plan& plan) {
  return AnalyticModel(plan.cluster, core::devices_needed(plan)).predict(plan);
}

}  // namespace scaleout::sim
