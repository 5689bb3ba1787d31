#include "core/model/compute_rate.hpp"

#include <algorithm>
#include <cstdio>

#include "core/model/device_compute.hpp"

namespace scaleout::core {

std::optional<double> measured_throughput(const Plan& plan) {
  for (const auto& [name, rate] : plan.workload.measured_throughput)
    if (name == plan.cluster.device.name) return rate;
  return std::nullopt;
}

double compute_efficiency(const Plan& plan) {
  if (auto rate = measured_throughput(plan))
    return plan.workload.flops_per_sample * *rate / plan.cluster.device.flops;
  if (plan.training.efficiency) return *plan.training.efficiency;
  if (compute_from_device(plan))
    return device_efficiency(plan, std::max(1, plan.training.batch_per_worker));
  return plan.workload.efficiency;
}

std::vector<std::string> compute_warnings(const Plan& plan) {
  std::vector<std::string> out;
  const auto& listed = plan.workload.measured_throughput;
  auto rate = measured_throughput(plan);
  const std::string& device = plan.cluster.device.name;
  if (rate && plan.training.efficiency) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", *rate);
    out.push_back("training.efficiency is not used: the model's measured throughput for " + device +
                  " (" + buf + " samples/s) sets the compute time");
  }
  if (!rate && !listed.empty()) {
    std::string names;
    for (const auto& [name, r] : listed) names += (names.empty() ? "" : ", ") + name;
    out.push_back("the model's measured_throughput has no entry for device '" + device +
                  "' (it lists " + names + "): compute time from FLOPs x efficiency instead");
  }
  if (compute_from_device(plan) && plan.cluster.device.matmul_ceiling <= 0)
    out.push_back("the device " + device +
                  " has no measured matmul_ceiling: its matrix products run at the datasheet "
                  "peak, which no device reaches, so compute comes out too fast; give the best "
                  "rate measured on it over its peak as device.matmul_ceiling");
  if (rate && compute_efficiency(plan) > 1)
    out.push_back("the measured throughput for " + device +
                  " implies more than the device's peak FLOP/s at the model's flops_per_sample");
  return out;
}

}  // namespace scaleout::core
