#include "analytic/analytic_tree.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <vector>

#include "core/model/host_costs.hpp"
#include "core/model/transport.hpp"
#include "core/programs/strategies/double_tree.hpp"

namespace scaleout::sim {

namespace {

// How many nodes hold workers, and the most workers one of them holds (the longest chain).
struct Nodes {
  int count = 0;
  int widest = 0;
};

Nodes nodes_of(const LinkModel& L) {
  const core::Topology& t = *L.topo;
  Nodes n;
  n.count = t.node_of_device(L.workers - 1) + 1;
  for (int x = 0; x < n.count; ++x)
    n.widest = std::max(n.widest, std::min(t.devices_on_node(x), L.workers - t.first_device(x)));
  return n;
}

// Seconds for `bytes` from device a to device b while `link_flows` flows share each device link
// direction on the way and `nic_flows` each NIC direction; between nodes, plus the hosts' costs
// (the receiver's sum when the step `summed` what it received).
double flow_time(const LinkModel& L, int a, int b, double bytes, int link_flows, int nic_flows,
                 bool summed = false) {
  const core::Topology& t = *L.topo;
  core::Topology::Cost cost = t.device_cost(a, b);
  double device_bw =
      std::min(t.links()[t.device_link(a)].bandwidth, t.links()[t.device_link(b)].bandwidth);
  double rate = std::min(cost.bandwidth, device_bw / link_flows);
  if (t.node_of_device(a) != t.node_of_device(b) && L.nic_bw > 0)
    rate = std::min(rate, L.nic_bw / nic_flows);
  // Between nodes a transfer is striped over the rails, a window each.
  int stripes = t.node_of_device(a) != t.node_of_device(b) ? t.rails() : 1;
  rate = std::min(rate * L.bandwidth_factor / L.cross_traffic,
                  core::window_rate(L.transport, cost.latency, stripes) * L.bandwidth_factor);
  double latency = cost.latency * L.latency_factor, host = 0;
  if (t.node_of_device(a) != t.node_of_device(b))
    host = core::host_step_time(L.host, bytes, summed) +
           core::rendezvous_seconds(L.transport, bytes, latency);
  return latency + bytes / rate + host;
}

struct Chunks {
  double count = 0, first = 0, last = 0;
};

// Whole chunks and a remainder, as the programs cut a span.
Chunks cut(double bytes, double chunk) {
  if (bytes <= 0) return {};
  double k = std::max(1.0, std::ceil(bytes / chunk - 1e-9));
  return {k, std::min(bytes, chunk), bytes - (k - 1) * chunk};
}

// A pipeline of `stages` links whose chunk takes step(c) seconds per link: the first chunk
// crosses every link, the others follow one step apart, the last (smaller) one last.
double pipeline(int stages, const Chunks& k, const std::function<double(double)>& step) {
  if (stages <= 0 || k.count <= 0) return 0;
  double t = stages * step(k.first);
  if (k.count > 1) t += (k.count - 2) * step(k.first) + step(k.last);
  return t;
}

// One transfer of a pipelined phase: at step s it carries chunk s - offset of tree `tree` (when
// that chunk exists) from device `from` to device `to`.
struct Transfer {
  int from = 0, to = 0, offset = 0;
  // Filled in by stepped_phase: the route's cost, both device links and both nodes.
  double latency = 0, path_bw = 0, from_bw = 0, to_bw = 0;
  double window_bw = 0;  // the transport's window over the route's round trip
  int from_node = 0, to_node = 0;
};

// Transfers sharing one link direction in a step, by size: whole chunks and last (smaller)
// chunks. Shared evenly, a transfer of b bytes ends once sum over them of min(b, theirs) passed.
struct Load {
  int whole = 0, last = 0;
  void add(bool is_last) { ++(is_last ? last : whole); }
  double bytes_until(const Chunks& k, bool is_last) const {
    return is_last ? (whole + last) * k.last : whole * k.first + last * k.last;
  }
};

// A phase run in steps, as pipelined_tree.cpp runs it: every rank posts a step's transfers and
// waits for them before its next step. A transfer starts once both its ranks reached the step
// and lasts its latency plus the time the step's transfers that share a device link or NIC
// direction with it take to carry as much as it does (even shares, smaller ones ending first).
// The phase ends when the last rank is done. Costs O(steps x transfers). Between nodes the hosts'
// costs count too: a rank's sends of a step leave one after another, each after its overhead and
// copy, and a receiver that `sums` adds what it received before its next step.
double stepped_phase(const LinkModel& L, std::vector<Transfer> transfers, const Chunks& k,
                     bool sums) {
  const core::Topology& t = *L.topo;
  if (transfers.empty() || k.count <= 0) return 0;
  long first = transfers.front().offset, last = first;
  for (auto& x : transfers) {
    core::Topology::Cost cost = t.device_cost(x.from, x.to);
    x.latency = cost.latency * L.latency_factor;
    x.path_bw = cost.bandwidth;
    x.from_node = t.node_of_device(x.from);
    x.to_node = t.node_of_device(x.to);
    x.window_bw =
        core::window_rate(L.transport, cost.latency, x.from_node != x.to_node ? t.rails() : 1) *
        L.bandwidth_factor;
    x.from_bw = t.links()[t.device_link(x.from)].bandwidth;
    x.to_bw = t.links()[t.device_link(x.to)].bandwidth;
    first = std::min<long>(first, x.offset);
    last = std::max<long>(last, x.offset + static_cast<long>(k.count) - 1);
  }
  int devices = L.workers, nodes = t.node_of_device(devices - 1) + 1;
  std::vector<Load> up(devices), down(devices), out(nodes), in(nodes);
  std::vector<double> clock(devices, 0.0), next(devices, 0.0), sent(devices), summing(devices);
  double scale = L.bandwidth_factor / L.cross_traffic;
  for (long s = first; s <= last; ++s) {
    auto chunk_of = [&](const Transfer& x) { return s - x.offset; };
    auto active = [&](const Transfer& x) { return chunk_of(x) >= 0 && chunk_of(x) < k.count; };
    auto is_last = [&](const Transfer& x) { return chunk_of(x) == k.count - 1; };
    for (auto* v : {&up, &down}) std::fill(v->begin(), v->end(), Load{});
    for (auto* v : {&out, &in}) std::fill(v->begin(), v->end(), Load{});
    for (const auto& x : transfers) {
      if (!active(x)) continue;
      up[x.from].add(is_last(x)), down[x.to].add(is_last(x));
      int a = x.from_node, b = x.to_node;
      if (a != b) out[a].add(is_last(x)), in[b].add(is_last(x));
    }
    next = clock;
    std::fill(sent.begin(), sent.end(), 0.0);
    std::fill(summing.begin(), summing.end(), 0.0);
    for (const auto& x : transfers)
      if (active(x) && x.from_node != x.to_node && sums)
        summing[x.to] += core::host_sum_time(L.host, is_last(x) ? k.last : k.first);
    for (const auto& x : transfers) {
      if (!active(x)) continue;
      bool l = is_last(x);
      double own = l ? k.last : k.first;
      if (x.from_node != x.to_node)
        sent[x.from] += core::host_send_time(L.host, own) +
                        core::rendezvous_seconds(L.transport, own, x.latency);
      double busy = std::max({own / x.path_bw, up[x.from].bytes_until(k, l) / x.from_bw,
                              down[x.to].bytes_until(k, l) / x.to_bw});
      int a = x.from_node, b = x.to_node;
      if (a != b && L.nic_bw > 0)
        busy = std::max(
            {busy, out[a].bytes_until(k, l) / L.nic_bw, in[b].bytes_until(k, l) / L.nic_bw});
      double moving = std::max(busy / scale, own / x.window_bw);
      double end = std::max(clock[x.from] + sent[x.from], clock[x.to]) + x.latency + moving;
      next[x.from] = std::max(next[x.from], end);
      next[x.to] = std::max(next[x.to], end + summing[x.to]);
    }
    std::swap(clock, next);
  }
  return *std::max_element(clock.begin(), clock.end());
}

// The tree as tree.cpp builds it: chains inside nodes (leader first) and the double binary tree
// across nodes, each tree's leaders at their height (reduce) and depth (broadcast) in steps.
struct TreeShape {
  std::vector<int> first, length;  // each node's first device and chain length
  std::array<std::vector<core::TreeLinks>, 2> links;
  std::array<std::vector<int>, 2> height, depth;

  TreeShape(const core::Topology& t, int workers) {
    int m = t.node_of_device(workers - 1) + 1;
    for (int x = 0; x < m; ++x) {
      first.push_back(t.first_device(x));
      length.push_back(std::min(t.devices_on_node(x), workers - t.first_device(x)));
    }
    for (int w = 0; w < 2; ++w) {
      for (int x = 0; x < m; ++x) links[w].push_back(core::double_tree_links(w, x, m));
      height[w].assign(m, 0);
      depth[w].assign(m, 0);
      for (int x = 0; x < m; ++x)
        if (links[w][x].parent < 0) measure(w, x, 0);
    }
  }
  void measure(int w, int x, int d) {
    depth[w][x] = d;
    int h = length[x] - 1;
    for (int c : links[w][x].children) {
      measure(w, c, d + 1);
      h = std::max(h, height[w][c] + 1);
    }
    height[w][x] = h;
  }
  std::vector<Transfer> reduce() const {
    std::vector<Transfer> v;
    for (int w = 0; w < 2; ++w)
      for (std::size_t x = 0; x < first.size(); ++x) {
        for (int i = 0; i + 1 < length[x]; ++i)
          v.push_back({first[x] + i + 1, first[x] + i, length[x] - 2 - i});
        int p = links[w][x].parent;
        if (p >= 0) v.push_back({first[x], first[p], height[w][x]});
      }
    return v;
  }
  std::vector<Transfer> broadcast() const {
    std::vector<Transfer> v;
    for (int w = 0; w < 2; ++w)
      for (std::size_t x = 0; x < first.size(); ++x) {
        for (int i = 0; i + 1 < length[x]; ++i)
          v.push_back({first[x] + i, first[x] + i + 1, depth[w][x] + i});
        int p = links[w][x].parent;
        if (p >= 0) v.push_back({first[p], first[x], depth[w][p]});
      }
    return v;
  }
};

}  // namespace

double tree_time(const LinkModel& L, double bytes, double chunk_bytes) {
  TreeShape shape(*L.topo, L.workers);
  Chunks k = cut(bytes / 2, chunk_bytes);
  return stepped_phase(L, shape.reduce(), k, true) + stepped_phase(L, shape.broadcast(), k, false);
}

double hierarchical_allreduce_time(const LinkModel& L, double bytes, double chunk_bytes) {
  Nodes n = nodes_of(L);
  Chunks k = cut(bytes, chunk_bytes);
  auto chain = [&](double c) { return flow_time(L, 0, 1, c, 1, 1); };
  double t = 2 * pipeline(n.widest - 1, k, chain);
  int m = n.count;
  if (m > 1) {
    double summed = 0, plain = 0;  // reduce-scatter steps add what they receive, all-gather not
    for (int x = 0; x < m; ++x) {
      int from = L.topo->first_device(x), to = L.topo->first_device((x + 1) % m);
      summed = std::max(summed, flow_time(L, from, to, bytes / m, 1, 1, true));
      plain = std::max(plain, flow_time(L, from, to, bytes / m, 1, 1));
    }
    t += (m - 1) * summed + (m - 1) * plain;
  }
  return t;
}

double hierarchical_halving_doubling_time(const LinkModel& L, double bytes, double chunk_bytes) {
  Nodes n = nodes_of(L);
  Chunks k = cut(bytes, chunk_bytes);
  auto chain = [&](double c) { return flow_time(L, 0, 1, c, 1, 1); };
  double t = 2 * pipeline(n.widest - 1, k, chain);
  int m = n.count, p = 1;
  while (p * 2 <= m) p *= 2;
  int extra = m - p;
  auto leader = [&](int i) { return L.topo->first_device(i); };
  auto index_node = [extra](int i) { return i < extra ? 2 * i : i + extra; };
  if (extra > 0)  // fold in (summed) and out
    t += flow_time(L, leader(1), leader(0), bytes, 1, 1, true) +
         flow_time(L, leader(1), leader(0), bytes, 1, 1);
  double piece = bytes;
  for (int d = 1; d < p; d <<= 1) {
    piece /= 2;
    double summed = 0, plain = 0;  // halving adds what it receives, doubling not
    for (int i = 0; i < p; ++i) {
      int from = leader(index_node(i)), to = leader(index_node(i ^ d));
      summed = std::max(summed, flow_time(L, from, to, piece, 1, 1, true));
      plain = std::max(plain, flow_time(L, from, to, piece, 1, 1));
    }
    t += summed + plain;
  }
  return t;
}

}  // namespace scaleout::sim
