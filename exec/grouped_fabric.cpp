#include "exec/grouped_fabric.hpp"

namespace scaleout::exec {

using namespace scaleout::core;

Fabric::Handle GroupedFabric::post_send(int peer, Span span) {
  return planner_.post(PointOp{true, peer, span, Combine::kReplace});
}

Fabric::Handle GroupedFabric::post_recv(int peer, Span span, Combine combine) {
  return planner_.post(PointOp{false, peer, span, combine});
}

void GroupedFabric::issue_posted() {
  std::vector<PointOp> group = planner_.take_group();
  if (!group.empty()) issue(group);
}

void GroupedFabric::wait_all(const std::vector<Handle>&) {
  // Groups complete in issue order: waiting for the last one waits for every handle.
  issue_posted();
  wait_issued();
}

void GroupedFabric::run_exchange(int to, int from, int count, const StepFn& step_at,
                                 const StepTotals* /*totals*/) {
  for (int i = 0; i < count; ++i) {
    ExchangeStep step = step_at(i);
    if (step.send.count > 0) post_send(to, step.send);
    if (step.recv.count > 0) post_recv(from, step.recv, step.combine);
    issue_posted();
  }
  wait_issued();
}

}  // namespace scaleout::exec
