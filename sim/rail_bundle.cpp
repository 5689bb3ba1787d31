#include "sim/rail_bundle.hpp"

#include "core/topology.hpp"

namespace scaleout::sim {

bool bundles_rails(const core::Plan& plan, long long from) {
  const core::Cluster& c = plan.cluster;
  if (c.nics_per_node < 2 || c.network.kind != core::NetworkKind::kSwitch) return false;
  if (c.network_model != "cm02" && c.network_model != "lv08") return false;
  const long long stand_ins =
      static_cast<long long>(core::devices_needed(plan)) * (c.nics_per_node - 1);
  return stand_ins >= from;
}

core::Plan with_rails_bundled(const core::Plan& plan) {
  core::Plan bundled = plan;
  bundled.cluster.nic.bandwidth *= plan.cluster.nics_per_node;
  bundled.cluster.nics_per_node = 1;
  return bundled;
}

std::string rails_bundled_warning(const core::Plan& plan) {
  return "each node's " + std::to_string(plan.cluster.nics_per_node) +
         " NICs were simulated as one link of their summed rate (every transfer between nodes is "
         "striped evenly over them, so the rates are those of the rails; link loads name that "
         "one NIC)";
}

}  // namespace scaleout::sim
