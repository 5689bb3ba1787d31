#include "sim/checkpoint_transfers.hpp"

#include <algorithm>

#include "core/reliability/goodput.hpp"

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;

namespace {

// Starts every transfer of one direction at once and waits for the last: its length. A rank's
// part is striped over its node's NICs, as every transfer between nodes is.
double all_at_once(const SimPlatform& platform, const std::vector<int>& rank_device,
                   const std::vector<core::RankCheckpoint>& ranks, bool writing) {
  const double start = sg4::Engine::get_clock();
  const auto& rails = platform.rail_hosts;
  std::vector<sg4::CommPtr> comms;
  const std::size_t count = std::min(ranks.size(), rank_device.size());
  for (std::size_t r = 0; r < count; ++r) {
    const double bytes = (writing ? ranks[r].write : ranks[r].read) / rails.size();
    if (!(bytes > 0)) continue;
    for (const auto& hosts : rails) {
      sg4::Host* device = hosts[rank_device[r]];
      sg4::Host* from = writing ? device : platform.storage_host;
      sg4::Host* to = writing ? platform.storage_host : device;
      comms.push_back(sg4::Comm::sendto_async(from, to, static_cast<std::uint64_t>(bytes)));
    }
  }
  sg4::Comm::wait_all(comms);
  return sg4::Engine::get_clock() - start;
}

}  // namespace

std::optional<StorageLinkSpec> storage_link_for(const core::Plan& plan) {
  if (!core::checkpoints_move_to_storage(plan)) return std::nullopt;
  const core::Storage& st = plan.cluster.storage;
  return StorageLinkSpec{st.write_bandwidth, st.read_bandwidth, plan.cluster.nic.latency};
}

core::CheckpointTransfers simulate_checkpoint_transfers(
    sg4::Engine& engine, const SimPlatform& platform, const std::vector<int>& rank_device,
    const std::vector<core::RankCheckpoint>& ranks, bool read_back) {
  core::CheckpointTransfers out;
  sg4::Actor::create("checkpoint", platform.storage_host, [&] {
    out.write_s = all_at_once(platform, rank_device, ranks, true);
    if (read_back) out.read_s = all_at_once(platform, rank_device, ranks, false);
  });
  engine.run();
  return out;
}

void time_checkpoints_on_links(core::RunResult& result, const core::Plan& plan, sg4::Engine& engine,
                               const SimPlatform& platform, const std::vector<int>& rank_device) {
  if (!core::checkpoints_move_to_storage(plan)) return;
  if (!platform.storage_host) {
    result.warnings.push_back(
        "the checkpoint's transfers to storage are the closed form's: the network has no switch "
        "for the simulation to attach storage to");
    return;
  }
  // Without a read rate the closed form reads nothing back; the simulation follows it.
  const bool read_back = plan.cluster.storage.read_bandwidth > 0;
  core::CheckpointTransfers simulated = simulate_checkpoint_transfers(
      engine, platform, rank_device, core::checkpoint_by_rank(plan), read_back);
  result.reliability = core::reliability_outcome(plan, result.step_time_s, simulated);
}

}  // namespace scaleout::sim
