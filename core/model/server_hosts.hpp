// Dedicated parameter-server nodes as CPU hosts (`server_hosts: cpu`): what they change in how a
// job is counted. The topology keeps one node per server, with its own NIC, as for GPU servers;
// the server runs on the node's first device slot, which stands for the host's CPU, and the
// node's other slots stay empty. The network is the same either way; only the accelerators a job
// occupies (the planner's devices and cost) differ.
#pragma once

#include "core/plan/plan.hpp"

namespace scaleout::core {

// Accelerators the job occupies: devices_needed(plan), less the device slots of dedicated
// server nodes when they are CPU hosts.
int accelerators_needed(const Plan& plan);

}  // namespace scaleout::core
