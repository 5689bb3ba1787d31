#include "sim/rail_bundle.hpp"

#include <xbt/config.hpp>

#include "core/plan/topology.hpp"

namespace scaleout::sim {

bool bundles_rails(const core::Plan& plan, long long from) {
  const core::Cluster& c = plan.cluster;
  if (c.nics_per_node < 2 || c.network.kind != core::NetworkKind::kSwitch) return false;
  if (c.intra_fabric.kind == core::IntraNodeKind::kPcieTree) return false;
  if (c.network_model != "cm02" && c.network_model != "lv08") return false;
  const long long stand_ins =
      static_cast<long long>(core::devices_needed(plan)) * (c.nics_per_node - 1);
  return stand_ins >= from;
}

bool window_spares_node_links(const core::Plan& plan, double gamma) {
  const core::LinkSpec& link = plan.cluster.intra_node;
  const double route_latency = 2 * link.latency;
  return !(gamma > 0) || !(route_latency > 0) || gamma / (2 * route_latency) >= link.bandwidth;
}

core::Plan with_rails_bundled(const core::Plan& plan) {
  core::Plan bundled = plan;
  bundled.cluster.nic.bandwidth *= plan.cluster.nics_per_node;
  bundled.cluster.nics_per_node = 1;
  return bundled;
}

bool widen_window_for_rails(const core::Plan& plan) {
  const char* window = "network/TCP-gamma";
  const double gamma = simgrid::config::get_value<double>(window);
  if (!window_spares_node_links(plan, gamma)) return false;
  simgrid::config::set_value<double>(window, gamma * plan.cluster.nics_per_node);
  return true;
}

std::string rails_bundled_warning(const core::Plan& plan) {
  return "each node's " + std::to_string(plan.cluster.nics_per_node) +
         " NICs were simulated as one link of their summed rate (every transfer between nodes is "
         "striped evenly over them, so the rates are those of the rails; link loads name that "
         "one NIC)";
}

}  // namespace scaleout::sim
