// A group view of a fabric: a subset of the ranks seen as ranks 0..k-1, as ncclCommSplit makes a
// communicator of them, so that today's strategy programs run unchanged on a tensor group, a
// data group or a pair of pipeline stages. Transfers go to the underlying fabric with the group's
// ranks translated; the device is the rank's own (the underlying fabric's); messages go through
// the underlying fabric's mailbox, addressed and signed with group ranks. The view offers no
// optional interface of the underlying fabric (core/programs/receive_ahead.hpp): a program on a
// group does what those stand for itself.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "core/programs/fabric.hpp"

namespace scaleout::core {

class GroupFabric : public Fabric {
 public:
  // `members`: the underlying ranks of the group, in group order. REQUIRES: base.rank() is one
  // of them; `base` outlives the view.
  GroupFabric(Fabric& base, std::vector<int> members);
  ~GroupFabric() override;
  GroupFabric(const GroupFabric&) = delete;
  GroupFabric& operator=(const GroupFabric&) = delete;

  int rank() const override { return position_; }
  int size() const override { return static_cast<int>(members_.size()); }
  Handle post_send(int peer, Span span) override;
  Handle post_recv(int peer, Span span, Combine combine) override;
  void wait_all(const std::vector<Handle>& handles) override { base_.wait_all(handles); }
  void run_exchange(int to, int from, int count, const StepFn& step,
                    const StepTotals* totals) override;
  void mark_step(int step) override { base_.mark_step(step); }
  void end_bucket() override { base_.end_bucket(); }
  // The rank's own device: the underlying fabric's.
  Device& device() override { return base_.device(); }
  // The underlying fabric's mailbox seen with group ranks: a message to group rank p goes to
  // member(p), and one received says which group rank sent it. Null where the underlying fabric
  // carries no messages. REQUIRES: while the group's program receives, only the group's members
  // send this rank messages (one from outside is a std::logic_error).
  Mailbox* mailbox_if_any() override;

  // The underlying rank of group rank `peer`.
  int member(int peer) const { return members_.at(peer); }

 private:
  class GroupMailbox;

  Fabric& base_;
  std::vector<int> members_;
  int position_ = -1;
  std::unique_ptr<GroupMailbox> mailbox_;  // made at the first mailbox_if_any() that has one
};

}  // namespace scaleout::core
