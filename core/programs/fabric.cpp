#include "core/programs/fabric.hpp"

#include <stdexcept>
#include <string>

namespace scaleout::core {

void Fabric::run_exchange(int to, int from, int count, const StepFn& step_at,
                          const StepTotals* /*totals*/) {
  for (int i = 0; i < count; ++i) {
    ExchangeStep step = step_at(i);
    std::vector<Handle> handles;
    if (step.send.count > 0) handles.push_back(post_send(to, step.send));
    if (step.recv.count > 0) handles.push_back(post_recv(from, step.recv, step.combine));
    wait_all(handles);
  }
}

Mailbox& Fabric::mailbox() {
  if (Mailbox* m = mailbox_if_any()) return *m;
  throw std::logic_error("rank " + std::to_string(rank()) +
                         ": this fabric carries no parameter-server messages");
}

}  // namespace scaleout::core
