#include "core/group_fabric.hpp"

#include <algorithm>
#include <stdexcept>

namespace scaleout::core {

GroupFabric::GroupFabric(Fabric& base, std::vector<int> members)
    : base_(base), members_(std::move(members)) {
  auto it = std::find(members_.begin(), members_.end(), base_.rank());
  if (it == members_.end()) throw std::logic_error("a group view of a rank outside the group");
  position_ = static_cast<int>(it - members_.begin());
}

Fabric::Handle GroupFabric::post_send(int peer, Span span) {
  return base_.post_send(member(peer), span);
}

Fabric::Handle GroupFabric::post_recv(int peer, Span span, Combine combine) {
  return base_.post_recv(member(peer), span, combine);
}

void GroupFabric::exchange_steps(int to, int from, int count, const StepFn& step) {
  base_.exchange_steps(member(to), member(from), count, step);
}

void GroupFabric::exchange_run(int to, int from, int count, const StepFn& step,
                               const StepTotals& totals) {
  base_.exchange_run(member(to), member(from), count, step, totals);
}

void GroupFabric::send_message(int, const Message&) {
  throw std::logic_error("a group view carries no messages");
}

Message GroupFabric::receive_message() {
  throw std::logic_error("a group view carries no messages");
}

void GroupFabric::accept_data(Combine) {
  throw std::logic_error("a group view carries no messages");
}

}  // namespace scaleout::core
