// validate_plan (declared in plan_loader.hpp): the checks that span the parts of a plan, run once
// the command line's overrides are applied.
#include <algorithm>
#include <string>

#include "core/codecs/compression.hpp"
#include "core/codecs/powersgd_codec.hpp"
#include "core/model/model_memory.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/model_parallel_loader.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/topology.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "core/reliability/goodput.hpp"

namespace scaleout::core {

namespace {

// Devices the cluster offers; -1 when nodes are "auto" (as many as needed).
long long device_capacity(const Cluster& c) {
  long long dpn = c.devices_per_node;
  if (c.network.kind == NetworkKind::kExplicit) {
    long long total = 0;
    for (const auto& h : c.hosts) total += h.devices;
    return total;
  }
  if (c.network.kind == NetworkKind::kTorus2d)
    return static_cast<long long>(c.network.dims[0]) * c.network.dims[1] * dpn;
  if (c.network.kind == NetworkKind::kFatTree) {
    long long k = c.network.fat_tree_k;
    return k * k * k / 4 * dpn;
  }
  if (c.nodes) return *c.nodes * dpn;
  return -1;
}

// Nodes the job occupies: workers fill nodes in order, dedicated servers take the nodes after.
long long job_nodes(const Plan& plan) {
  long long needed = devices_needed(plan);
  const Cluster& c = plan.cluster;
  if (c.network.kind == NetworkKind::kExplicit) {
    long long nodes = 0, devices = 0;
    for (const auto& h : c.hosts) {
      if (devices >= needed) break;
      devices += h.devices;
      ++nodes;
    }
    return nodes;
  }
  long long dpn = std::max(1, c.devices_per_node);
  return (needed + dpn - 1) / dpn;
}

void check_devices(const Plan& plan) {
  const auto& t = plan.training;
  const auto& s = plan.strategy;
  long long capacity = device_capacity(plan.cluster);
  long long needed = t.workers;
  if (s.kind == StrategyKind::kPs && s.ps_placement == PsPlacement::kDedicated) {
    // Dedicated servers take whole nodes of their own.
    needed = t.workers +
             static_cast<long long>(s.ps_servers) * std::max(1, plan.cluster.devices_per_node);
  }
  if (capacity >= 0 && needed > capacity)
    throw InputError(plan.file, t.workers_line, "training.workers",
                     std::to_string(t.workers) + " workers" +
                         (needed > t.workers ? " plus dedicated parameter servers" : "") +
                         " need more devices than the cluster '" + plan.cluster.name + "' has (" +
                         std::to_string(capacity) + ")");
}

// Bounds the devices a job takes (as devices_needed counts them, in a type that cannot overflow)
// so that every engine's int counts stay exact.
void check_job_size(const Plan& plan) {
  const auto& s = plan.strategy;
  long long dpn = std::max(1, plan.cluster.devices_per_node);
  long long needed = plan.training.workers;
  if (s.kind == StrategyKind::kPs && s.ps_placement == PsPlacement::kDedicated)
    needed = (needed + dpn - 1) / dpn * dpn + s.ps_servers * dpn;
  if (needed > kMaxDevices)
    throw InputError(plan.file, plan.training.workers_line, "training.workers",
                     "the job takes " + std::to_string(needed) +
                         " devices, more than scaleout takes (" + std::to_string(kMaxDevices) +
                         ")");
}

void check_parameter_server(const Plan& plan) {
  const auto& t = plan.training;
  const auto& s = plan.strategy;
  if (s.kind != StrategyKind::kPs) return;
  if (s.staleness_bound >= 0 && s.ps_servers > 1)
    throw InputError(plan.file, s.line, "strategy.staleness_bound",
                     "bounded staleness needs servers: 1 (each shard would admit pulls on its own, "
                     "and two shards holding back different workers would wait on each other)");
  if (s.replicas_to_aggregate > t.workers)
    throw InputError(plan.file, s.replicas_line, "strategy.replicas_to_aggregate",
                     "cannot exceed the " + std::to_string(t.workers) + " workers");
  if (s.softsync > t.workers)
    throw InputError(plan.file, s.softsync_line, "strategy.softsync",
                     "cannot exceed the " + std::to_string(t.workers) +
                         " workers (n-softsync applies after workers/n gradients)");
  if (s.ps_local_aggregation == PsAggregation::kNode && uses_ps_training(plan))
    throw InputError(plan.file, s.local_aggregation_line ? s.local_aggregation_line : s.line,
                     "strategy.local_aggregation",
                     "node aggregation applies to the synchronous PS with every worker aggregated "
                     "(not to mode: async, softsync or backup workers, whose servers count "
                     "each worker's gradient on its own)");
  if (s.ps_server_hosts == PsServerHosts::kCpu && s.ps_placement == PsPlacement::kColocated)
    throw InputError(plan.file, s.server_hosts_line ? s.server_hosts_line : s.line,
                     "strategy.server_hosts",
                     "CPU server hosts are dedicated nodes: colocated servers run beside workers");
  if (s.delay_compensation.on && t.gradient_precision != "fp32")
    throw InputError(plan.file, s.delay_compensation.line, "strategy.delay_compensation",
                     "delay compensation keeps fp32 parameters and gradients; gradient_precision "
                     "is " +
                         t.gradient_precision);
  if (s.ps_placement == PsPlacement::kColocated && s.ps_servers > t.workers)
    throw InputError(
        plan.file, s.servers_line ? s.servers_line : s.line, "strategy.servers",
        "colocated servers cannot outnumber the workers (" + std::to_string(t.workers) + ")");
}

void check_job_members(const Plan& plan) {
  const auto& t = plan.training;
  for (int w : plan.stragglers.slow_workers)
    if (w >= t.workers)
      throw InputError(plan.file, plan.stragglers.slow_workers_line, "stragglers.slow.workers",
                       "worker " + std::to_string(w) + " does not exist (" +
                           std::to_string(t.workers) + " workers: 0 to " +
                           std::to_string(t.workers - 1) + ")");
  long long nodes = job_nodes(plan);
  for (const auto& f : plan.resilience.failures)
    if (f.node >= nodes)
      throw InputError(plan.file, f.line, "failures.node",
                       "node " + std::to_string(f.node) +
                           " is not part of the job (it runs on nodes 0 to " +
                           std::to_string(nodes - 1) + ")");
}

// A compressed synchronous PS (core/programs/strategies/compressed_ps.cpp, and
// compressed_ps_local.cpp per node) pushes to and pulls from its servers: what it does not carry is
// refused.
void check_compressed_ps(const Plan& plan, const std::string& name) {
  const Strategy& s = plan.strategy;
  const Compression& c = plan.training.compression;
  auto refuse = [&](int line, const std::string& field, const std::string& why) {
    throw InputError(plan.file, line ? line : c.line, field,
                     "compression " + name + " over the parameter server " + why);
  };
  if (c.kind == CompressionKind::kPowersgd)
    refuse(c.line, "training.compression.kind",
           "is not built (PowerSGD's two all-reduces run over the ring)");
  if (c.gathered())
    refuse(c.exchange_line, "training.compression.exchange",
           "pushes to the servers; exchange: allgather runs over the ring");
  if (c.majority_vote && s.ps_local_aggregation == PsAggregation::kNode)
    refuse(c.majority_vote_line, "training.compression.majority_vote",
           "counts one vote per worker; with local_aggregation: node a node's sum would vote");
  if (s.ps_mode != PsMode::kSync || s.replicas_to_aggregate > 0 || s.softsync > 0 ||
      s.staleness_bound >= 0)
    refuse(s.line, "strategy.mode", "runs synchronous steps only (every worker's push summed)");
}

// Compression runs over the ring (its all-gathers and the quantized owners' exchange) and the
// synchronous parameter server; the other programs do not carry it in this version.
void check_compression(const Plan& plan) {
  const Compression& c = plan.training.compression;
  std::string name = compression_name(c.kind);
  if (c.kind == CompressionKind::kPowersgd) {
    // Each bucket is compressed as one matrix (core/codecs/powersgd_codec.hpp): no bucket's is
    // larger than the whole gradient's, whose smaller side bounds the rank (smaller buckets use
    // theirs).
    auto elements = static_cast<std::int64_t>(plan.workload.parameters);
    LowRankShape whole = low_rank_shape(elements, c.rank);
    if (c.rank > std::min(whole.rows, whole.cols))
      throw InputError(plan.file, c.rank_line ? c.rank_line : c.line, "training.compression.rank",
                       "rank " + std::to_string(c.rank) + " is above the smaller side (" +
                           std::to_string(std::min(whole.rows, whole.cols)) +
                           ") of the gradient's matrix (" + std::to_string(whole.rows) + " x " +
                           std::to_string(whole.cols) + ")");
  }
  if (!c.on()) return;
  if (plan.parallelism)
    throw InputError(plan.file, c.line, "training.compression",
                     "compression " + name +
                         " applies to data-parallel plans; a plan with "
                         "parallelism: does not carry it in this version");
  if (plan.strategy.kind == StrategyKind::kPs) return check_compressed_ps(plan, name);
  if (c.majority_vote && !c.allgather)
    throw InputError(plan.file, c.majority_vote_line, "training.compression.majority_vote",
                     "needs exchange: allgather over the ring (every worker counts every worker's "
                     "vote), or a parameter server (the server counts them)");
  if (plan.strategy.kind != StrategyKind::kRing)
    throw InputError(plan.file, plan.strategy.line ? plan.strategy.line : c.line, "strategy.kind",
                     std::string("compression ") + name +
                         " runs over the ring and the synchronous ps; " +
                         strategy_name(plan.strategy.kind) + " cannot carry it in this version");
}

}  // namespace

void validate_plan(const Plan& plan, bool split_searched) {
  const auto& t = plan.training;
  const auto& s = plan.strategy;
  if (t.workers < 1)
    throw InputError(plan.file, t.workers_line, "training.workers", "must be at least 1");
  if (static_cast<long long>(t.workers) * t.batch_per_worker > kMaxSamplesPerStep)
    throw InputError(
        plan.file, t.batch_line ? t.batch_line : t.workers_line, "training.batch_per_worker",
        std::to_string(t.workers) + " workers x " + std::to_string(t.batch_per_worker) +
            " samples is more than " + std::to_string(kMaxSamplesPerStep) + " samples a step");
  if (s.kind == StrategyKind::kTorus2d && s.grid &&
      static_cast<long long>((*s.grid)[0]) * (*s.grid)[1] != t.workers)
    throw InputError(plan.file, s.grid_line, "strategy.grid",
                     "grid " + std::to_string((*s.grid)[0]) + "x" + std::to_string((*s.grid)[1]) +
                         " does not multiply to the " + std::to_string(t.workers) + " workers");
  check_job_size(plan);
  check_devices(plan);
  check_parameter_server(plan);
  check_job_members(plan);
  check_compression(plan);
  validate_model_parallel(plan, split_searched);
  validate_reliability(plan);
  if (std::string why = data_parallel_does_not_fit(plan); !why.empty())
    throw InputError(plan.cluster.file.empty() ? plan.file : plan.cluster.file,
                     plan.cluster.device.memory_line, "device.memory", why);
}

}  // namespace scaleout::core
