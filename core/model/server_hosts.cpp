#include "core/model/server_hosts.hpp"

#include <algorithm>

#include "core/plan/topology.hpp"

namespace scaleout::core {

int accelerators_needed(const Plan& plan) {
  const Strategy& s = plan.strategy;
  int devices = devices_needed(plan);
  if (s.kind != StrategyKind::kPs || s.ps_placement != PsPlacement::kDedicated ||
      s.ps_server_hosts != PsServerHosts::kCpu)
    return devices;
  return devices - s.ps_servers * std::max(1, plan.cluster.devices_per_node);
}

}  // namespace scaleout::core
