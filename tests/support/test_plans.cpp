#include "tests/support/test_plans.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

namespace scaleout::testing {

std::string source_path(const std::string& relative) {
  return std::string(SCALEOUT_SOURCE_DIR) + "/" + relative;
}

std::vector<std::string> bundled_plans() {
  std::vector<std::string> plans;
  for (const auto& e : std::filesystem::recursive_directory_iterator(source_path("experiments"))) {
    if (e.path().extension() != ".yaml") continue;
    // Bundled on purpose to show a refusal (the docs run it and expect exit 2).
    if (e.path().stem().string().ends_with("-does-not-fit")) continue;
    YAML::Node root = YAML::LoadFile(e.path().string());
    if (root.IsMap() && root["cluster"]) plans.push_back(e.path().string());
  }
  std::sort(plans.begin(), plans.end());
  return plans;
}

core::Cluster switch_cluster(int devices_per_node, double nic_Bps, double nic_latency_s,
                             double intra_Bps, double intra_latency_s) {
  core::Cluster c;
  c.name = "test-switch";
  c.devices_per_node = devices_per_node;
  c.device.name = "test-device";
  c.device.flops = 100e12;
  c.intra_node = {intra_Bps, intra_latency_s};
  c.nic = {nic_Bps, nic_latency_s};
  c.network.kind = core::NetworkKind::kSwitch;
  c.network_model = "cm02";
  return c;
}

core::Plan collective_plan(const core::Cluster& cluster, core::StrategyKind kind, int workers,
                           double parameters) {
  core::Plan p;
  p.file = "test-plan";
  p.cluster = cluster;
  p.workload.name = "test-model";
  p.workload.parameters = parameters;
  p.workload.flops_per_sample = 1e9;
  p.workload.efficiency = 1.0;
  p.strategy.kind = kind;
  p.training.workers = workers;
  p.training.batch_per_worker = 1;
  p.training.steps = 1;
  p.training.overlap = false;
  return p;
}

void expect_rates_from_applied(const core::RunResult& r, int batch_per_worker, int steps) {
  double span = r.step_time_s * steps;
  double throughput = static_cast<double>(r.gradients.applied) * batch_per_worker / span;
  EXPECT_NEAR(r.throughput_samples_per_s, throughput, 1e-9 * throughput) << r.engine;
  double efficiency = throughput * r.phases.compute_s / (r.workers * batch_per_worker);
  EXPECT_NEAR(r.scaling_efficiency, efficiency, 1e-9 * efficiency) << r.engine;
}

core::Plan with_node_failures(core::Plan plan, double node_mtbf_s, double train_steps,
                              int every_steps, double cost_s, double restart_s) {
  core::Reliability rates;
  rates.node_mtbf = node_mtbf_s;
  rates.train_steps = train_steps;
  plan.reliability = rates;
  plan.resilience.checkpoint_every = every_steps;
  plan.resilience.checkpoint_cost = cost_s;
  plan.resilience.checkpoint_cost_given = true;
  plan.resilience.restart_time = restart_s;
  return plan;
}

}  // namespace scaleout::testing
