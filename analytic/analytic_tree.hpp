// Closed forms of the strategies that treat nodes apart with one leader per node (analytic.cpp
// calls them): the topology-aware tree, and reduce + all-reduce among leaders + broadcast with a
// ring (hierarchical_allreduce) or halving-doubling (hierarchical_halving_doubling) across nodes.
#pragma once

#include "core/plan/plan.hpp"
#include "core/plan/topology.hpp"

namespace scaleout::sim {

// What the closed forms need of the plan's network: ranks 0..workers-1 sit on devices
// 0..workers-1 (nodes filled in order); each node's NIC (0 when not uniform); the network model's
// corrections (1 under CM02); the hosts' software costs of messages between nodes.
struct LinkModel {
  const core::Topology* topo = nullptr;
  int workers = 0;
  double nic_bw = 0;
  double latency_factor = 1, bandwidth_factor = 1, cross_traffic = 1;
  core::HostCosts host;
  core::Transport transport;
};

// One all-reduce of `bytes`, pipelined in chunks of `chunk_bytes` (the tree and the chains).
double tree_time(const LinkModel& L, double bytes, double chunk_bytes);
double hierarchical_allreduce_time(const LinkModel& L, double bytes, double chunk_bytes);
double hierarchical_halving_doubling_time(const LinkModel& L, double bytes, double chunk_bytes);

}  // namespace scaleout::sim
