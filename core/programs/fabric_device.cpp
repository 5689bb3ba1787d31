#include "core/programs/fabric_device.hpp"

namespace scaleout::core {

Device::ComputeTicket Device::compute_async(double flops) {
  compute(flops);
  done_at_.push_back(now());
  return static_cast<ComputeTicket>(done_at_.size() - 1);
}

double Device::wait_compute(ComputeTicket ticket) {
  return done_at_.at(static_cast<std::size_t>(ticket));
}

}  // namespace scaleout::core
