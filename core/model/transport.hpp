// The wire protocol between hosts (`transport:` in a topology): TCP's window, which bounds what
// one flow moves per round trip, and MPI's eager/rendezvous switch, which makes a large message
// wait a round trip before its data. Both engines charge them through these functions.
#pragma once

#include <limits>
#include <string>

#include "core/plan/plan.hpp"
#include "core/plan/yaml_reader.hpp"

namespace scaleout::core {

// The most a transfer moves per second under the transport's window over a route of
// `route_latency` seconds (the links' latencies, without the network model's factor, as SimGrid
// bounds a flow): window / (2 x route_latency) for each of its `stripes` (a transfer between nodes
// striped over the rails is a flow a rail, a window each). Unbounded (infinity) over RDMA, without
// a window, or over a route without latency.
inline double window_rate(const Transport& t, double route_latency, int stripes = 1) {
  if (t.kind == TransportKind::kRdma || !(t.window > 0) || !(route_latency > 0))
    return std::numeric_limits<double>::infinity();
  return stripes * t.window / (2 * route_latency);
}

// The rendezvous a message of `bytes` between nodes waits before its data moves: one round trip,
// 2 x `latency` (the route's latency as the engines charge it, the model's factor included), when
// the message is above the eager limit; else 0.
inline double rendezvous_seconds(const Transport& t, double bytes, double latency) {
  return t.rendezvous(bytes) ? 2 * latency : 0.0;
}

// SimGrid's network/TCP-gamma for the transport: the window, or 0 (no bound) over RDMA.
inline double simgrid_window(const Transport& t) {
  return t.kind == TransportKind::kRdma ? 0.0 : t.window;
}

// Whether the transport may slow a transfer between nodes of the cluster: a rendezvous (an eager
// limit), or a window that binds over a route between two nodes (each end's device link and NIC)
// below the NIC's rate.
inline bool transport_may_bind(const Cluster& c) {
  const Transport& t = c.transport;
  double route = 2 * (c.intra_node.latency + c.nic.latency);
  return t.eager_limit >= 0 || window_rate(t, route) < c.nic.bandwidth;
}

// The closed form's warning for transfers whose forms leave the transport out (an asynchronous or
// compressed parameter server's messages), where it may bind.
inline std::string transport_warning(const char* what) {
  return std::string("the transport's TCP window or rendezvous may slow ") + what +
         ", which the closed form leaves out (SimGrid charges both): use --engine sim";
}

// Reads `transport: { kind: tcp, window: 4MiB, eager_limit: 64KiB }` from `parent`. Throws
// InputError naming file, line and field: an unknown kind, a window over RDMA, a window that is
// not a positive size, an eager limit below 0.
Transport read_transport(YamlMap& parent);

}  // namespace scaleout::core
