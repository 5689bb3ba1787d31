// What a closed-form result says about where it stands outside what the tests hold it to.
#include <string>
#include <vector>

#include "core/strategies/ps_training.hpp"
#include "sim/analytic.hpp"

namespace scaleout::sim {

// Where the closed forms stand outside what a test holds them to (sim and analytic within 2% on
// contention-free switches, PS within 10% at small scale): said in the result, never silently.
std::vector<std::string> analytic_warnings(const core::Plan& plan) {
  std::vector<std::string> out;
  const auto& s = plan.strategy;
  const auto& net = plan.cluster.network;
  if (s.kind == core::StrategyKind::kTree && plan.cluster.devices_per_node > 0 &&
      plan.training.workers % plan.cluster.devices_per_node != 0)
    out.push_back(
        "the tree's closed form is held to the simulator within 2% on whole nodes; with a partial "
        "last node it was seen 6% off: use --engine sim");
  if (s.kind == core::StrategyKind::kPs && s.ps_placement == core::PsPlacement::kColocated)
    out.push_back(
        "colocated parameter servers share their worker's links in ways the closed form does not "
        "model (seen 1.7-1.9x off the simulator): use --engine sim");
  if (core::uses_ps_training(plan) && s.ps_mode == core::PsMode::kAsync &&
      plan.training.workers > 16)
    out.push_back(
        "the asynchronous PS closed form is held to the simulator within 10% at 16 workers; at 256 "
        "workers it was about 20% off: use --engine sim to confirm");
  if (net.kind == core::NetworkKind::kTwoTier &&
      net.uplink.bandwidth < net.hosts_per_rack * plan.cluster.nic.bandwidth)
    out.push_back(
        "the rack uplinks are oversubscribed: the closed form counts NIC sharing only, not uplink "
        "contention (seen 2x off for a PS): use --engine sim");
  if (net.kind == core::NetworkKind::kFatTree || net.kind == core::NetworkKind::kTorus2d ||
      net.kind == core::NetworkKind::kExplicit)
    out.push_back(
        "contention inside this network (fabric links) is not in the closed form: use --engine "
        "sim");
  // SimGrid's IB model slows a host's flows when it sends or receives several at once; the closed
  // form has its size-dependent factors but not those penalties (seen: PS 2x, tree 1.3x).
  if (plan.cluster.network_model == "ib" &&
      (s.kind == core::StrategyKind::kPs || s.kind == core::StrategyKind::kTree))
    out.push_back(
        "SimGrid's IB model penalizes hosts with several flows at once (a parameter server, a "
        "tree's parents), which the closed form leaves out: use --engine sim");
  if (plan.cluster.intra_fabric.socket_link && s.kind != core::StrategyKind::kRing)
    out.push_back(
        "with two CPU sockets per node the closed form was seen 2.1% above the simulator "
        "(hierarchical ring and torus2d over four 8-GPU boxes): use --engine sim to confirm");
  // Host costs fall on the steps that cross nodes; where a ring also has steps inside nodes, or in
  // a tree, the simulator's ranks drift apart and hide some of them, which the closed form's
  // slowest-flow-per-step does not.
  if (plan.cluster.host.any() && s.kind == core::StrategyKind::kRing &&
      plan.cluster.devices_per_node > 1 && plan.training.workers > plan.cluster.devices_per_node)
    out.push_back(
        "with host costs on nodes of several devices the ring's closed form was seen 16% above "
        "the simulator (8 and 16 workers on 4-device nodes): use --engine sim");
  if (plan.cluster.host.any() && s.kind == core::StrategyKind::kTree)
    out.push_back(
        "with host costs the tree's closed form was seen 6-7% above the simulator (4 and 6 nodes): "
        "use --engine sim");
  if (plan.cluster.network_model == "ib" && s.kind == core::StrategyKind::kTorus2d)
    out.push_back(
        "under the IB model the torus2d closed form was seen 3% above the simulator (64 workers, "
        "1 MB): use --engine sim");
  return out;
}

}  // namespace scaleout::sim
