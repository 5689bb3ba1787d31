#include "core/programs/group_fabric.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace scaleout::core {

// The underlying mailbox with the group's ranks translated both ways.
class GroupFabric::GroupMailbox : public Mailbox {
 public:
  GroupMailbox(Mailbox& base, const std::vector<int>& members) : base_(base), members_(members) {
    for (std::size_t i = 0; i < members_.size(); ++i)
      position_of_[members_[i]] = static_cast<int>(i);
  }

  void send_message(int peer, const Message& m) override {
    base_.send_message(members_.at(peer), m);
  }
  Message receive_message() override {
    Message m = base_.receive_message();
    auto it = position_of_.find(m.from);
    if (it == position_of_.end())
      throw std::logic_error("a group view got a message from rank " + std::to_string(m.from) +
                             ", outside its group");
    m.from = it->second;
    return m;
  }
  void accept_data(Combine combine) override { base_.accept_data(combine); }
  void accept_update(double seconds, const UpdateFn& apply) override {
    base_.accept_update(seconds, apply);
  }
  void flush_messages() override { base_.flush_messages(); }

 private:
  Mailbox& base_;
  const std::vector<int>& members_;
  std::unordered_map<int, int> position_of_;  // underlying rank -> group rank
};

GroupFabric::GroupFabric(Fabric& base, std::vector<int> members)
    : base_(base), members_(std::move(members)) {
  auto it = std::find(members_.begin(), members_.end(), base_.rank());
  if (it == members_.end()) throw std::logic_error("a group view of a rank outside the group");
  position_ = static_cast<int>(it - members_.begin());
}

GroupFabric::~GroupFabric() = default;

Fabric::Handle GroupFabric::post_send(int peer, Span span) {
  return base_.post_send(member(peer), span);
}

Fabric::Handle GroupFabric::post_recv(int peer, Span span, Combine combine) {
  return base_.post_recv(member(peer), span, combine);
}

void GroupFabric::run_exchange(int to, int from, int count, const StepFn& step,
                               const StepTotals* totals) {
  base_.run_exchange(member(to), member(from), count, step, totals);
}

Mailbox* GroupFabric::mailbox_if_any() {
  Mailbox* base = base_.mailbox_if_any();
  if (!base) return nullptr;
  if (!mailbox_) mailbox_ = std::make_unique<GroupMailbox>(*base, members_);
  return mailbox_.get();
}

}  // namespace scaleout::core
