// A fabric that moves nothing and records what a rank's program asks of the network, grouped as
// the NCCL fabric issues it (the grouping is GroupedFabric's, which both share): each wait_all and
// each exchange step is one ncclGroupStart/End. Needs no GPU: `run --backend cuda --dry-run`
// prints it.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "exec/grouped_fabric.hpp"

namespace scaleout::exec {

using OpGroup = std::vector<PointOp>;

// Its own device, which takes no time (the clock stays at 0).
class ScheduleFabric : public GroupedFabric, public core::Device {
 public:
  ScheduleFabric(int rank, int size) : rank_(rank), size_(size) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  core::Device& device() override { return *this; }
  // Parameter-server messages have no NCCL counterpart: none (a program that sends them is
  // refused, Fabric::mailbox()).
  core::Mailbox* mailbox_if_any() override { return nullptr; }
  void idle(double) override {}
  void compute(double) override {}
  double now() override { return 0; }

  // The groups in the order they were issued.
  const std::vector<OpGroup>& groups() const { return groups_; }

 protected:
  void issue(const std::vector<PointOp>& group) override { groups_.push_back(group); }
  void wait_issued() override {}

 private:
  int rank_, size_;
  std::vector<OpGroup> groups_;
};

// Throws InputError for plans whose training needs messages from any rank (asynchronous PS,
// backup workers, softsync, bounded staleness): NCCL gives no such channel, so on GPUs those run
// with CPU servers over TCP (exec/cuda_backend.hpp's DeviceWorker) and have no NCCL schedule.
void check_nccl_schedulable(const core::Plan& plan);

// Each rank's groups for one step of the plan's training loop (every rank's own program, on a
// few threads). Throws as check_nccl_schedulable does.
std::vector<std::vector<OpGroup>> schedule_plan(const core::Plan& plan);

// "rank 0 group 3: ncclSend(peer 1, [0, 1024)) ncclRecv(peer 3, [1024, 2048) add)", a line per
// group, ranks in order.
std::string format_schedule(const std::vector<std::vector<OpGroup>>& ranks);

}  // namespace scaleout::exec
