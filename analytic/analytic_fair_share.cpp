#include "analytic/analytic_fair_share.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/plan/units.hpp"

namespace scaleout::sim {

using core::kInfinite;

namespace {

struct Use {
  int constraint;  // a link direction, numbered densely
  double weight;
};

// Progressive filling: every unfixed flow's rate grows alike until a link direction is full;
// the flows on it are then fixed at their rate, and the others go on growing.
std::vector<double> max_min_rates(const std::vector<std::vector<Use>>& uses,
                                  const std::vector<double>& capacity,
                                  const std::vector<char>& active) {
  std::size_t flows = uses.size();
  std::vector<double> rate(flows, 0), left = capacity, load(capacity.size());
  std::vector<char> fixed(flows), full(capacity.size());
  for (std::size_t f = 0; f < flows; ++f) fixed[f] = !active[f];
  while (true) {
    std::fill(load.begin(), load.end(), 0.0);
    bool growing = false;
    for (std::size_t f = 0; f < flows; ++f)
      if (!fixed[f]) {
        growing = true;
        for (const Use& u : uses[f]) load[u.constraint] += u.weight;
      }
    if (!growing) break;
    double step = kInfinite;
    for (std::size_t c = 0; c < load.size(); ++c)
      if (load[c] > 0) step = std::min(step, left[c] / load[c]);
    std::fill(full.begin(), full.end(), 0);
    for (std::size_t c = 0; c < load.size(); ++c)
      if (load[c] > 0) {
        left[c] -= step * load[c];
        full[c] = left[c] <= 1e-9 * capacity[c];
      }
    for (std::size_t f = 0; f < flows; ++f) {
      if (fixed[f]) continue;
      rate[f] += step;
      fixed[f] = std::any_of(uses[f].begin(), uses[f].end(),
                             [&](const Use& u) { return full[u.constraint] != 0; });
    }
  }
  return rate;
}

}  // namespace

double fair_share_makespan(const core::Topology& topo, const std::vector<FairFlow>& flows,
                           double bandwidth_factor, double cross_traffic) {
  // link * 2 + (reverse direction) -> constraint, numbered as first used (-1: not yet)
  std::vector<int> index(2 * topo.links().size(), -1);
  std::vector<double> capacity;
  auto constraint = [&](int link, bool forward) {
    int& c = index[2 * static_cast<std::size_t>(link) + (forward ? 0 : 1)];
    if (c < 0) {
      c = static_cast<int>(capacity.size());
      capacity.push_back(topo.links()[link].bandwidth);
    }
    return c;
  };
  std::vector<std::vector<Use>> uses(flows.size());
  std::vector<double> remaining(flows.size());
  std::vector<char> active(flows.size());
  for (std::size_t f = 0; f < flows.size(); ++f) {
    uses[f].reserve(flows[f].hops.size() * (cross_traffic > 1 ? 2 : 1));
    for (const core::Hop& h : flows[f].hops) {
      uses[f].push_back({constraint(h.link, h.forward), 1.0});
      if (cross_traffic > 1) uses[f].push_back({constraint(h.link, !h.forward), cross_traffic - 1});
    }
    if (std::isfinite(flows[f].cap)) {  // a constraint of its own
      uses[f].push_back({static_cast<int>(capacity.size()), 1.0});
      capacity.push_back(flows[f].cap);
    }
    remaining[f] = flows[f].bytes;
    active[f] = flows[f].bytes > 0 && !uses[f].empty();
  }
  double t = 0;
  while (std::any_of(active.begin(), active.end(), [](char a) { return a != 0; })) {
    std::vector<double> rate = max_min_rates(uses, capacity, active);
    double dt = kInfinite;
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (active[f]) dt = std::min(dt, remaining[f] / rate[f]);
    t += dt;
    // Flows that end within a rounding error of the first end with it (equal flows end together).
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (active[f]) {
        remaining[f] -= rate[f] * dt;
        if (remaining[f] <= 1e-9 * flows[f].bytes) active[f] = 0;
      }
  }
  return t / bandwidth_factor;
}

}  // namespace scaleout::sim
