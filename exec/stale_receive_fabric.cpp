#include "exec/stale_receive_fabric.hpp"

namespace scaleout::exec {

core::Fabric::Handle StaleReceiveFabric::post_recv(int peer, core::Span span,
                                                   core::Combine combine) {
  if (armed_) {
    armed_ = false;
    span.begin = scratch_begin_;  // the program's slot is left as it was
  }
  return inner_.post_recv(peer, span, combine);
}

void StaleReceiveFabric::mark_step(int step) {
  inner_.mark_step(step);
  armed_ = step == 1;
}

}  // namespace scaleout::exec
