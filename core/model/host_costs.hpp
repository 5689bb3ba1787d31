// The host's software costs (`host:` in a topology): what the engines charge for a message that
// crosses a NIC and for a server's summation, and how the loader reads them.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/plan/yaml_reader.hpp"

namespace scaleout::core {

// Host time a sender spends on one message of `bytes` before it goes on the wire: the per-message
// overhead plus the copy of its bytes (serialization). Zero with the default (absent) costs.
inline double host_send_time(const HostCosts& h, double bytes) {
  return h.message_overhead + (h.copy_rate > 0 ? bytes / h.copy_rate : 0.0);
}

// Host time a server spends adding `bytes` of a received gradient into its sum.
inline double host_sum_time(const HostCosts& h, double bytes) {
  return h.sum_rate > 0 ? bytes / h.sum_rate : 0.0;
}

// Host time of one message between nodes in an exchange step: the sender's overhead and copy,
// and the receiver's addition when the step sums what it receives (a reduce-scatter step), before
// the sum can be forwarded. Zero with the default costs.
inline double host_step_time(const HostCosts& h, double bytes, bool summed) {
  return host_send_time(h, bytes) + (summed ? host_sum_time(h, bytes) : 0.0);
}

// Reads `host: { message_overhead: 40us, copy_rate: 8GB/s, sum_rate: 4GB/s }` from `parent`
// (each key optional; every value positive). Throws InputError naming file, line and field.
HostCosts read_host_costs(YamlMap& parent);

}  // namespace scaleout::core
