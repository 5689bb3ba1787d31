// Closed form of the synchronous parameter server with local aggregation (`local_aggregation:
// node`) and with the hosts' software costs (`host:` in the topology). The plain form (neither)
// stays in analytic.cpp.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/plan/topology.hpp"

namespace scaleout::sim {

// What the PS closed form needs of the analytic engine's layout: ranks 0..workers-1 on devices
// 0..workers-1, servers after them; nic_bw is each node's NIC (0: no uniform NIC); the factors
// are the network model's (LV08 or none).
struct PsInputs {
  const core::Topology* topo = nullptr;
  int workers = 0;
  double nic_bw = 0;
  double latency_factor = 1, bandwidth_factor = 1, cross_traffic = 1;
};

// Time of one exchange of `bytes` (push, then pull) without aggregation or host costs: the
// program's flows over the plan's placement, shared max-min fairly (any placement and network).
double parameter_server_plain(const PsInputs& in, const core::Plan& plan, double bytes);
// The same with each shard's push and pull of their own sizes (a compressed PS).
double parameter_server_plain(const PsInputs& in, const core::Plan& plan, double push_shard,
                              double pull_shard);

// True when the plan needs this form rather than the plain one.
bool ps_needs_extended_form(const core::Plan& plan);

// Time of one exchange of `bytes` (push, then pull): an intra-node ring reduce-scatter and
// all-gather around the push and pull when aggregating, each sender's host time (message overhead
// and copy) pipelined with its transfers, and the servers' summation after the push.
// With compression, `push_ratio` and `pull_ratio` scale what crosses to and from the servers
// (encoded over dense bytes); the node's reduce-scatter and all-gather stay dense.
double parameter_server_extended(const PsInputs& in, const core::Plan& plan, double bytes,
                                 double push_ratio = 1, double pull_ratio = 1);

// What the closed forms leave out of the host costs, for the result's warnings (empty: nothing).
std::vector<std::string> ps_extended_warnings(const core::Plan& plan);

}  // namespace scaleout::sim
