// Nodes with several NICs on one switch (rails) simulated as one NIC of their summed rate, at
// scale. Every transfer between nodes is striped evenly over the rails, so each rail carries the
// same share of the same transfers: under max-min sharing (CM02, LV08) one link of R times the
// rate carrying whole transfers gives the same rates. Striped, each share is a transfer between
// stand-in hosts, which SimGrid 3.32 keeps in one engine-wide list and removes from it by a scan:
// with thousands of ranks crossing nodes at once, that scan took 90 % of the simulation (Llama 3
// 405B on 16,384 GPUs: 179 s striped, 16 s bundled, step times 1e-4 apart).
#pragma once

#include <string>

#include "core/plan.hpp"

namespace scaleout::sim {

// Ranks x (rails - 1), the stand-in transfers a step could keep in flight, from which rails are
// bundled.
inline constexpr long long kBundleRailsFrom = 8192;

// Whether the simulation bundles the plan's rails: several NICs a node on one switch, a network
// model that shares by max-min alone (cm02, lv08: not ib, whose penalties count flows), and at
// least `from` stand-in transfers (ranks x (rails - 1)).
bool bundles_rails(const core::Plan& plan, long long from = kBundleRailsFrom);

// The plan's cluster with one NIC a node of the rails' summed rate (the rest unchanged).
core::Plan with_rails_bundled(const core::Plan& plan);

// The result's warning that says so.
std::string rails_bundled_warning(const core::Plan& plan);

}  // namespace scaleout::sim
