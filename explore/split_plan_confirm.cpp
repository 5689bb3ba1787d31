#include "explore/split_plan_confirm.hpp"

#include <algorithm>
#include <cstdio>

#include "core/reliability/goodput.hpp"
#include "explore/planner.hpp"

namespace scaleout::sim {

namespace {

// The fastest simulated split's sequences/s (none: nothing simulated). Not the first of the
// order, which keeps the closed form's order within 0.1%.
std::optional<double> simulated_best(const SplitRefinement& r) {
  std::optional<double> best;
  for (const auto& split : r.order)
    if (split.simulated)
      best = std::max(best.value_or(0), split.simulated->throughput_samples_per_s);
  return best;
}

std::string describe(const ConfirmedCluster& c, const SplitPlanRequest& request) {
  double target = request.sequences_per_s;
  char buf[320];
  const SplitPlanAnswer& a = c.answer;
  std::string shortfall;
  for (int n : c.fell_short) shortfall += (shortfall.empty() ? "" : ", ") + std::to_string(n);
  if (!c.simulated_sequences_per_s) {
    std::snprintf(buf, sizeof buf,
                  "SimGrid: no split at %d workers could be simulated; the closed form's answer "
                  "is not confirmed",
                  a.workers);
  } else if (!a.reachable) {
    std::snprintf(buf, sizeof buf,
                  "SimGrid: not reachable with at most %d workers: every count from the closed "
                  "form's answer up falls short in simulation (%s)",
                  request.max_workers, shortfall.c_str());
  } else if (c.fell_short.empty()) {
    std::snprintf(buf, sizeof buf,
                  "SimGrid confirms: %d workers give %.1f sequences/s at their fastest simulated "
                  "split (target %.1f)",
                  a.workers, *c.simulated_sequences_per_s, target);
  } else {
    std::snprintf(buf, sizeof buf,
                  "SimGrid moves the answer to %d workers (%.1f sequences/s simulated, target "
                  "%.1f): %s workers reach the target in closed form only",
                  a.workers, *c.simulated_sequences_per_s, target, shortfall.c_str());
  }
  return buf;
}

}  // namespace

ConfirmedCluster confirm_by_simulation(const core::Plan& plan, const SplitPlanRequest& request,
                                       SplitPlanAnswer closed_form, const RefineOptions& options) {
  ConfirmedCluster c;
  c.answer = std::move(closed_form);
  c.refinement = refine_splits(c.answer.search, options);
  c.simulated_sequences_per_s = simulated_best(c.refinement);
  if (!c.answer.reachable) return c;                            // nothing to confirm: no message
  int node = planner_sizes(plan, request.max_workers).front();  // workers of one whole node
  int first = c.answer.workers;
  core::Plan fixed = with_global_batch(plan);
  while (c.simulated_sequences_per_s && *c.simulated_sequences_per_s < request.sequences_per_s &&
         !c.refinement.cancelled) {
    c.fell_short.push_back(c.answer.workers);
    // The next whole-node count with a split (a data degree that divides the global batch).
    SplitSearch next;
    int n = c.answer.workers;
    while (next.best.empty() && n + node <= request.max_workers) {
      n += node;
      if (n > c.answer.tried.back()) c.answer.tried.push_back(n);  // not searched yet
      next = search_at(fixed, n, request.search);
    }
    if (next.best.empty()) {
      c.answer.reachable = false;
      break;
    }
    c.answer.workers = n;
    c.answer.search = std::move(next);
    c.refinement = refine_splits(c.answer.search, options);
    c.simulated_sequences_per_s = simulated_best(c.refinement);
  }
  if (c.answer.cost_per_hour)  // the same price a device, at the count it ends at
    c.answer.cost_per_hour = *c.answer.cost_per_hour / core::paid_devices(plan, first) *
                             core::paid_devices(plan, c.answer.workers);
  c.message = describe(c, request);
  // The answer's line speaks of the count it ends at: the closed form's figures there, or, when
  // no count up to the limit reaches the target in simulation, simulation's line.
  if (!c.answer.reachable)
    c.answer.message = c.message;
  else if (c.answer.workers != first)
    c.answer.message = describe_answer(c.answer, request.sequences_per_s);
  return c;
}

}  // namespace scaleout::sim
