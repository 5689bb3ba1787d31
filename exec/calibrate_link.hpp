// Measuring a link class as the strategies load it: latency by ping-pong, and bandwidth three
// ways between two hosts (or two ranks of one host): one flow one way, one flow each way at once
// (every link of a ring carries both), and several flows each way at once (the ranks of a node
// sharing its NIC). The last is the rate a topology is given.
#pragma once

#include <string>

#include "exec/calibrate.hpp"

namespace scaleout::exec {

// `flows` pairs of processes, ranks 0..flows-1 in namespace `ns0` at `host0` and the rest in
// `ns1` at `host1` ("" namespace: this one), rank i paired with flows + i. Throws
// std::runtime_error naming the failing rank's error.
LinkMeasure measure_link(const std::string& ns0, const std::string& ns1, const std::string& host0,
                         const std::string& host1, int flows, const CalibrateOptions& o);

}  // namespace scaleout::exec
