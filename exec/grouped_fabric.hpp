// A fabric whose point-to-point transfers go out in groups, as NCCL issues them: a wait issues
// everything posted since the last one as one group and then waits for it; each step of an
// exchange is one group, issued without waiting in between (the device's stream keeps them in
// order), with one wait at the end. The NCCL fabric and the dry-run schedule both derive from it,
// so the schedule a user reads is the one the GPUs run.
#pragma once

#include <vector>

#include "core/programs/fabric.hpp"
#include "exec/op_groups.hpp"

namespace scaleout::exec {

class GroupedFabric : public core::Fabric {
 public:
  Handle post_send(int peer, core::Span span) override;
  Handle post_recv(int peer, core::Span span, core::Combine combine) override;
  void wait_all(const std::vector<Handle>& handles) override;
  // Each step one group, issued without waiting; one wait at the end. The totals are not needed.
  void run_exchange(int to, int from, int count, const StepFn& step,
                    const StepTotals* totals) override;
  void end_bucket() override { planner_.clear(); }

 protected:
  // Starts `group`: the operations posted since the last issue, in posting order, never empty.
  virtual void issue(const std::vector<PointOp>& group) = 0;
  // Waits until everything issued so far completed.
  virtual void wait_issued() = 0;

 private:
  void issue_posted();
  GroupPlanner planner_;
};

}  // namespace scaleout::exec
