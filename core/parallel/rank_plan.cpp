#include "core/parallel/rank_plan.hpp"

#include <cmath>

#include "core/codecs/compression.hpp"
#include "core/codecs/delay_compensation.hpp"
#include "core/model/compute_rate.hpp"
#include "core/model/step_model.hpp"
#include "core/programs/fusion.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

RankPlan plan_ranks(const Plan& plan) {
  RankPlan p{Topology::build(plan.cluster, devices_needed(plan)), {}, {}, {}};
  p.placement = place_ranks(plan, p.topology);
  p.layout.workers = plan.training.workers;
  p.layout.servers = static_cast<int>(p.placement.server_device.size());
  for (int d : p.placement.worker_device)
    p.layout.worker_node.push_back(p.topology.node_of_device(d));
  p.rank_device = p.placement.worker_device;
  p.rank_device.insert(p.rank_device.end(), p.placement.server_device.begin(),
                       p.placement.server_device.end());
  return p;
}

namespace {

// The fusion, bucket count and torus grid of the plan, and what the result should say about its
// compute and fusion figures.
void describe_exchange(RunResult& r, const Plan& plan) {
  r.fusion = fusion_kind_name(plan.training.fusion.kind);
  r.buckets = uses_ps_training(plan) ? 1 : count_buckets(plan);
  if (plan.strategy.kind == StrategyKind::kTorus2d) {
    auto g = torus_grid(plan.strategy, plan.training.workers);
    r.grid = std::to_string(g[0]) + "x" + std::to_string(g[1]);
  }
  r.warnings = compute_warnings(plan);
  if (plan.training.fusion.kind != Training::Fusion::Kind::kLegacy && !plan.training.overlap)
    r.warnings.push_back(std::string("training.fusion (") + r.fusion +
                         ") shapes buckets only with overlap: without it the gradient leaves as "
                         "one bucket after backward");
}

}  // namespace

RunResult result_header(const Plan& plan, const std::string& engine,
                        const std::string& network_model, int servers) {
  RunResult r;
  r.engine = engine;
  r.strategy = strategy_name(plan.strategy.kind);
  r.plan = plan.file;
  r.cluster = plan.cluster.name;
  r.workload = plan.workload.name;
  r.network_model = network_model;
  r.workers = plan.training.workers;
  r.servers = servers;
  r.precision = plan.training.gradient_precision;
  // As StepModel counts them: whole elements of the gradient precision.
  r.bytes = static_cast<double>(std::llround(plan.workload.parameters)) *
            plan.training.gradient_bytes_per_element;
  describe_exchange(r, plan);
  if (plan.training.compression.kind != CompressionKind::kNone) {
    std::vector<std::int64_t> counts;
    for (const auto& b : make_step_model(plan).buckets) counts.push_back(b.span.count);
    r.compression = compression_step(plan, counts);
  }
  r.compensation = compensation_cost(plan);
  return r;
}

}  // namespace scaleout::core
