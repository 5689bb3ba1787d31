#include "core/fabric.hpp"

namespace scaleout::core {

void Fabric::exchange_steps(int to, int from, int count, const StepFn& step_at) {
  for (int i = 0; i < count; ++i) {
    ExchangeStep step = step_at(i);
    std::vector<Handle> handles;
    if (step.send.count > 0) handles.push_back(post_send(to, step.send));
    if (step.recv.count > 0) handles.push_back(post_recv(from, step.recv, step.combine));
    wait_all(handles);
  }
}

Fabric::ComputeTicket Fabric::compute_async(double flops) {
  compute(flops);
  done_at_.push_back(now());
  return static_cast<ComputeTicket>(done_at_.size() - 1);
}

double Fabric::wait_compute(ComputeTicket ticket) {
  return done_at_.at(static_cast<std::size_t>(ticket));
}

}  // namespace scaleout::core
