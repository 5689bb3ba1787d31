// A checkpoint's transfers simulated on the platform: after the step, every rank writes its part
// of the checkpoint (core::checkpoint_by_rank) to the storage host at once, striped over its
// node's NICs as every transfer between nodes is, and then reads back what it holds,
// sharing the storage's link, the NICs and the network as max-min flows do. The times go into
// the reliability outcome in place of the closed form's.
#pragma once

#include <optional>
#include <simgrid/s4u.hpp>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/reliability/checkpoint_size.hpp"
#include "core/results/result.hpp"
#include "sim/platform.hpp"

namespace scaleout::sim {

// The storage link for a plan whose checkpoints move to `storage:` (nullopt otherwise): the
// storage's rates, and the NIC's latency.
std::optional<StorageLinkSpec> storage_link_for(const core::Plan& plan);

// Runs the engine again with one actor that times the writes, then (with `read_back`) the reads.
// REQUIRES: platform.storage_host; the engine's actors all finished.
core::CheckpointTransfers simulate_checkpoint_transfers(
    simgrid::s4u::Engine& engine, const SimPlatform& platform, const std::vector<int>& rank_device,
    const std::vector<core::RankCheckpoint>& ranks, bool read_back);

// For a plan whose checkpoints move to storage: `result.reliability` from the simulated
// transfers, or a warning that they are the closed form's when the platform has no storage host
// (a network without switches).
void time_checkpoints_on_links(core::RunResult& result, const core::Plan& plan,
                               simgrid::s4u::Engine& engine, const SimPlatform& platform,
                               const std::vector<int>& rank_device);

}  // namespace scaleout::sim
