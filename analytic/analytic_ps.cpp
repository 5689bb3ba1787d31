#include "analytic/analytic_ps.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analytic/analytic_fair_share.hpp"
#include "core/model/host_costs.hpp"
#include "core/model/transport.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::sim {

namespace {

std::int64_t overlap(core::Span a, core::Span b) {
  return std::max<std::int64_t>(0, std::min(a.end(), b.end()) - std::max(a.begin, b.begin));
}

// Who talks to a server, as the program cuts the bucket: every worker its whole gradient, or each
// worker of a node the segment it owns after the node's reduce-scatter.
struct Traffic {
  int per_node = 1;         // workers on a node (senders sharing its NIC)
  int nodes = 1;            // nodes holding workers
  double sender_bytes = 0;  // each worker's push (and pull) in all
  int sender_messages = 0;  // messages one worker pushes (the most of any)
  int server_messages = 0;  // messages server 0 receives, and later sends
  double server_adds = 0;   // bytes server 0 adds into its sum (contributions after the first)
};

Traffic traffic(const core::Topology& t, const core::Plan& plan, int n, double bytes) {
  Traffic tr;
  int k = plan.strategy.ps_servers;
  bool node = plan.strategy.ps_local_aggregation == core::PsAggregation::kNode;
  tr.per_node = std::min(n, t.devices_on_node(0));
  tr.nodes = (n + tr.per_node - 1) / tr.per_node;
  // Element counts of the program's split, scaled back to bytes below.
  std::int64_t elements = std::max<std::int64_t>(1, std::llround(bytes));
  core::Span all{0, elements}, shard0 = core::split_part(all, k, 0);
  int g = node ? tr.per_node : 1;
  int senders = node ? g : 1;  // distinct parts of one node (the same for every node)
  for (int i = 0; i < senders; ++i) {
    core::Span part = core::split_part(all, g, (i + 1) % g);
    int msgs = 0;
    for (int j = 0; j < k; ++j) msgs += overlap(part, core::split_part(all, k, j)) > 0;
    tr.sender_messages = std::max(tr.sender_messages, msgs);
    tr.server_messages += overlap(part, shard0) > 0;
  }
  tr.server_messages *= node ? tr.nodes : n;
  tr.sender_bytes = bytes / g;
  int contributions = node ? tr.nodes : n;
  tr.server_adds = (contributions - 1) * bytes / k;
  return tr;
}

// A host that spends `host` seconds on each of its `messages` before it leaves: the first leaves
// after one host time and the link carries `own` seconds of them in all; the last leaves after
// all host times and needs `last` seconds more (where the flows of that batch meet).
double pipelined(double host, int messages, double own, double last) {
  return std::max(host + own, messages * host + last);
}

// Reduce-scatter or all-gather over a ring of the g devices of one node.
double intra_ring(const PsInputs& in, int g, double bytes) {
  if (g < 2) return 0;
  core::Topology::Cost c = in.topo->device_cost(0, 1);
  double rate = c.bandwidth * in.bandwidth_factor / in.cross_traffic;
  return (g - 1) * (c.latency * in.latency_factor + bytes / g / rate);
}

// Every worker sends each server its shard at once (push), or every server each worker (pull):
// the flows' routes over the topology, striped over the rails between nodes as the simulator does.
// Each stripe is a flow of its own, bounded by the transport's window.
std::vector<FairFlow> ps_flows(const core::Topology& t, const core::Placement& p, double shard,
                               bool push, const core::Transport& transport) {
  std::vector<FairFlow> flows;
  for (int w : p.worker_device)
    for (int s : p.server_device) {
      int from = push ? w : s, to = push ? s : w;
      bool across = t.node_of_device(from) != t.node_of_device(to);
      int rails = across ? t.rails() : 1;
      for (int r = 0; r < rails; ++r) {
        core::Path path = t.device_path(from, to, r);
        // A window above the route's slowest link never binds: no constraint for the solver.
        double window = core::window_rate(transport, path.latency);
        if (window >= path.bandwidth) window = std::numeric_limits<double>::infinity();
        flows.push_back({std::move(path.hops), shard / rails, window});
      }
    }
  return flows;
}

}  // namespace

double parameter_server_plain(const PsInputs& in, const core::Plan& plan, double bytes) {
  double shard = bytes / plan.strategy.ps_servers;
  return parameter_server_plain(in, plan, shard, shard);
}

double parameter_server_plain(const PsInputs& in, const core::Plan& plan, double push_shard,
                              double pull_shard) {
  const core::Topology& t = *in.topo;
  core::Placement p = core::place_ranks(plan, t);
  double alpha = 0;
  for (int w : p.worker_device)
    for (int s : p.server_device)
      alpha = std::max(alpha, t.device_cost(w, s).latency * in.latency_factor);
  // Push, then pull: each a phase of flows sharing links max-min fairly (a server's link among
  // the N workers, a node's NIC among its workers and a colocated server's traffic, an uplink
  // among its rack's flows), the way the simulator's network model shares them.
  const core::Transport& transport = plan.cluster.transport;
  double push = fair_share_makespan(t, ps_flows(t, p, push_shard, true, transport),
                                    in.bandwidth_factor, in.cross_traffic);
  double pull = fair_share_makespan(t, ps_flows(t, p, pull_shard, false, transport),
                                    in.bandwidth_factor, in.cross_traffic);
  return 2 * alpha + push + pull;
}

bool ps_needs_extended_form(const core::Plan& plan) {
  return plan.strategy.ps_local_aggregation == core::PsAggregation::kNode ||
         plan.cluster.host.any() || plan.cluster.transport.eager_limit >= 0;
}

namespace {

// The most one message between devices `from` and `to` moves per second under the transport's
// window: striped over the rails between nodes, a window each (the model's factor applied).
double message_window(const PsInputs& in, const core::Plan& plan, int from, int to) {
  const core::Topology& t = *in.topo;
  int stripes = t.node_of_device(from) != t.node_of_device(to) ? t.rails() : 1;
  return core::window_rate(plan.cluster.transport, t.device_cost(from, to).latency, stripes) *
         in.bandwidth_factor;
}

}  // namespace

double parameter_server_extended(const PsInputs& in, const core::Plan& plan, double bytes,
                                 double push_ratio, double pull_ratio) {
  const core::Topology& t = *in.topo;
  int k = plan.strategy.ps_servers, n = in.workers;
  bool dedicated = plan.strategy.ps_placement == core::PsPlacement::kDedicated;
  int first_server = dedicated ? t.first_device(t.node_of_device(n - 1) + 1) : 0;
  core::Topology::Cost cost = t.device_cost(n - 1, first_server);
  double alpha = cost.latency * in.latency_factor;
  double path_bw = cost.bandwidth * in.bandwidth_factor;
  Traffic tr = traffic(t, plan, n, bytes);
  bool shared_nic = in.nic_bw > 0 && t.num_nodes() > 1;
  // Each message a flow of its own under the transport's window: a worker's to every server at
  // once, a server's from every sender.
  double window = message_window(in, plan, n - 1, first_server);
  double flow_bw = shared_nic ? std::min(path_bw, in.nic_bw / tr.per_node) : path_bw;
  flow_bw = std::min(flow_bw, window * tr.sender_messages);
  double server_bw = in.nic_bw > 0 ? std::min(path_bw, in.nic_bw) : path_bw;
  server_bw = std::min(server_bw, window * tr.server_messages);
  // A server's link carries one contribution per sender of its shard (S/k from each node or
  // worker); a worker's its own part, sharing its node's NIC with the node's other senders.
  double server_bytes = tr.server_adds + bytes / k;
  double worker_side = tr.sender_bytes / flow_bw, server_side = server_bytes / server_bw;
  double network = std::max(worker_side, server_side);
  const core::HostCosts& h = plan.cluster.host;
  // Push: every worker sends to the servers in order, so server j's contributions all leave after
  // the workers' (j+1)-th host time, and the last server's link then carries them all.
  double worker_msg = push_ratio * tr.sender_bytes / tr.sender_messages;
  // A rendezvous holds each message as a host's time on it would.
  const core::Transport& transport = plan.cluster.transport;
  double h_w =
      core::host_send_time(h, worker_msg) + core::rendezvous_seconds(transport, worker_msg, alpha);
  double push = alpha + pipelined(h_w, tr.sender_messages, push_ratio * network,
                                  std::max(push_ratio * server_side, worker_msg / window));
  // A compressed PS's servers decode and add what they receive as its codec's work (charged with
  // the codecs), not at the host's summation rate.
  if (!plan.training.compression.on()) push += core::host_sum_time(h, tr.server_adds);
  // Pull: the last server starts last and sends to the workers in order.
  network *= pull_ratio;
  server_bytes *= pull_ratio;
  double server_msg = server_bytes / tr.server_messages;
  double h_s =
      core::host_send_time(h, server_msg) + core::rendezvous_seconds(transport, server_msg, alpha);
  // The servers' last messages all go to the last node (to its last worker without aggregation):
  // k of them share its NIC, less what the earlier servers' got through while they waited.
  double node_rate = shared_nic ? in.nic_bw : path_bw;
  double last = std::max({server_msg / path_bw, server_msg / window,
                          k * server_msg / node_rate - (tr.sender_messages - 1) * h_w});
  double pull = alpha + pipelined(h_s, tr.server_messages, network, last);
  double inside = plan.strategy.ps_local_aggregation == core::PsAggregation::kNode
                      ? 2 * intra_ring(in, tr.per_node, bytes)
                      : 0;
  return inside + push + pull;
}

std::vector<std::string> ps_extended_warnings(const core::Plan& plan) {
  std::vector<std::string> out;
  // Tested: 16 workers without aggregation, 8 nodes of 4 with it. At 256 workers on 32 servers
  // (BERT-large, 8-GPU nodes, node aggregation) the closed form was 16% slower than the simulator,
  // whose servers start pulling while others still take pushes.
  if (plan.cluster.host.any() && plan.strategy.kind == core::StrategyKind::kPs &&
      !core::uses_ps_training(plan) && plan.training.workers > 32)
    out.push_back(
        "with host costs the PS closed form is held to the simulator within 2% up to 32 workers; "
        "at 256 workers it was 16% slower than the simulator: use --engine sim");
  if (plan.cluster.host.any() && core::uses_ps_training(plan))
    out.push_back(
        "host costs in the asynchronous, backup-worker and softsync PS closed forms are not held "
        "to the simulator by a test: use --engine sim");
  // Tested (16 workers on nodes of 4, top-k, int8, 1-bit): within 2% aggregated per node and with
  // one server; without aggregation over 4 servers 10-21% below the simulator.
  if (plan.cluster.host.any() && plan.training.compression.on() &&
      plan.strategy.kind == core::StrategyKind::kPs &&
      plan.strategy.ps_local_aggregation != core::PsAggregation::kNode &&
      plan.strategy.ps_servers > 1)
    out.push_back(
        "with host costs a compressed PS without local_aggregation: node over several servers "
        "came out 10-21% below the simulator in the closed form (held within 2% per node or "
        "with one server): use --engine sim");
  return out;
}

}  // namespace scaleout::sim
