// Nodes with several NICs on one switch (rails) simulated as one NIC of their summed rate, at
// scale. Every transfer between nodes is striped evenly over the rails, so each rail carries the
// same share of the same transfers: under max-min sharing (CM02, LV08) one link of R times the
// rate carrying whole transfers gives the same rates. SimGrid also bounds each flow by its TCP
// window, network/TCP-gamma / (2 x the route's latency): R stripes of a transfer may together
// move R windows, so the bundled run's window is R times the configured one. That is exact for
// transfers between nodes; those inside a node are not striped, so bundling needs their window
// never to bind (it does not on any bundled topology: 4 MiB over 2 x 2 us is 1 TB/s).
// Striped, each share is a transfer between stand-in hosts, which SimGrid 3.32 keeps in one
// engine-wide list and removes from it by a scan: with thousands of ranks crossing nodes at once,
// that scan took 90 % of the simulation (Llama 3 405B on 16,384 GPUs: 179 s striped, 21-29 s
// bundled).
#pragma once

#include <string>

#include "core/plan/plan.hpp"

namespace scaleout::sim {

// Ranks x (rails - 1), the stand-in transfers a step could keep in flight, from which rails are
// bundled.
inline constexpr long long kBundleRailsFrom = 8192;

// Whether the plan's rails may be bundled: several NICs a node on one switch, each device with
// its own link into the node (nvlink, nvswitch), a network model that shares by max-min alone
// (cm02, lv08: not ib, whose penalties count flows), and at least `from` stand-in transfers
// (ranks x (rails - 1)).
bool bundles_rails(const core::Plan& plan, long long from = kBundleRailsFrom);

// Whether a TCP window of `gamma` bytes leaves every transfer inside a node unbounded: gamma / (2
// x the route's two device links' latency) at least the device link's rate.
bool window_spares_node_links(const core::Plan& plan, double gamma);

// The plan's cluster with one NIC a node of the rails' summed rate (the rest unchanged).
core::Plan with_rails_bundled(const core::Plan& plan);

// For a plan whose rails are bundled: when the configured window spares the node links,
// multiplies SimGrid's network/TCP-gamma by the rails and returns true; else false (the rails
// must stay striped). REQUIRES: the engine's options set.
bool widen_window_for_rails(const core::Plan& plan);

// The result's warning that says so.
std::string rails_bundled_warning(const core::Plan& plan);

}  // namespace scaleout::sim
