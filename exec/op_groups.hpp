// Point-to-point operations queued by a fabric and issued in groups, as NCCL issues them: every
// send and receive posted since the last issue go out together (one ncclGroupStart/End). The
// dry-run schedule and the NCCL fabric share this planning, so the schedule a user reads is the
// one the GPUs run.
#pragma once

#include <string>
#include <vector>

#include "core/programs/fabric.hpp"

namespace scaleout::exec {

struct PointOp {
  bool send = false;
  int peer = -1;
  core::Span span;
  core::Combine combine = core::Combine::kReplace;  // receives only
  bool operator==(const PointOp&) const = default;
};

class GroupPlanner {
 public:
  // Queues `op`; returns its handle (its index since the last clear()).
  core::Fabric::Handle post(const PointOp& op);
  // Everything posted and not yet issued, in posting order; marks it issued. Empty when none.
  std::vector<PointOp> take_group();
  bool has_unissued() const { return issued_ < ops_.size(); }
  // Whether `handle` went out in a group already.
  bool issued(core::Fabric::Handle handle) const {
    return static_cast<std::size_t>(handle) < issued_;
  }
  const PointOp& op(core::Fabric::Handle handle) const {
    return ops_.at(static_cast<std::size_t>(handle));
  }
  // Forgets every operation (a bucket is over). REQUIRES: nothing unissued.
  void clear();

 private:
  std::vector<PointOp> ops_;
  std::size_t issued_ = 0;
};

// Where each receive-with-add of `group` lands in one scratch buffer reused by every group: its
// offset in elements (-1 for operations that need none), each aligned to `align` elements so that
// the add kernel can use vector loads. `total` gets the elements the group needs.
std::vector<std::int64_t> scratch_offsets(const std::vector<PointOp>& group, std::int64_t align,
                                          std::int64_t& total);

// "ncclSend(peer 1, [0, 1024))" or "ncclRecv(peer 3, [1024, 2048) add)".
std::string describe(const PointOp& op);

}  // namespace scaleout::exec
