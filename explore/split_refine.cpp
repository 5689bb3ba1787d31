#include "explore/split_refine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

namespace scaleout::sim {

namespace {

constexpr std::size_t kMostChangeLines = 10;  // the rest is in the table

std::vector<RefinedSplit> simulate_best(const SplitSearch& search, const RefineOptions& o,
                                        bool& cancelled) {
  std::size_t count = std::min<std::size_t>(std::max(0, o.count), search.best.size());
  std::vector<RefinedSplit> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i].closed_form_rank = static_cast<int>(i) + 1;
  EngineOptions e;
  e.sim = o.sim;
  e.jobs = o.jobs;
  e.cancel = o.cancel;
  e.on_running = o.on_running;
  auto engine = make_engine(Engine::kSim, e);
  PlanBatch batch{[&](std::size_t i) { return search.best[i].plan; }, nullptr};
  cancelled = !engine->predict_each(
      batch, 0, count, [&](std::size_t i, core::RunResult&& r) { out[i].simulated = std::move(r); },
      [&](std::size_t i, const std::string& why) { out[i].error = why; });
  return out;
}

// Simulated steps within kTiedShare of each other keep the closed form's order: the bins are
// of that width on a log scale, so the order is transitive.
constexpr double kTiedShare = 1e-3;

long long step_bin(const core::RunResult& r) {
  return std::llround(std::log(std::max(r.step_time_s, 1e-300)) / std::log1p(kTiedShare));
}

std::string percent_text(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", share * 100);
  return buf;
}

// What simulation changed, one line per split that moved.
std::vector<std::string> describe_changes(const SplitSearch& search,
                                          const std::vector<RefinedSplit>& order) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const RefinedSplit& r = order[i];
    if (!r.simulated) {
      lines.push_back("#" + std::to_string(r.closed_form_rank) +
                      " by the closed form was not simulated: " + r.error);
      continue;
    }
    if (r.closed_form_rank == static_cast<int>(i) + 1) continue;
    double closed = search.best[r.closed_form_rank - 1].result.step_time_s;
    lines.push_back("#" + std::to_string(r.closed_form_rank) + " by the closed form is #" +
                    std::to_string(i + 1) + " by simulation (its simulated step " +
                    percent_text(r.simulated->step_time_s / closed - 1) +
                    " from the closed form's)");
  }
  if (lines.empty()) lines.push_back("simulation kept the closed form's order");
  if (lines.size() > kMostChangeLines) {
    std::size_t more = lines.size() - kMostChangeLines;
    lines.resize(kMostChangeLines);
    lines.push_back("... and " + std::to_string(more) + " more");
  }
  return lines;
}

}  // namespace

SplitRefinement refine_splits(const SplitSearch& search, const RefineOptions& options) {
  SplitRefinement r;
  r.order = simulate_best(search, options, r.cancelled);
  std::stable_sort(r.order.begin(), r.order.end(),
                   [](const RefinedSplit& a, const RefinedSplit& b) {
                     if (a.simulated.has_value() != b.simulated.has_value())
                       return a.simulated.has_value();
                     if (!a.simulated) return false;
                     return step_bin(*a.simulated) < step_bin(*b.simulated);
                   });
  if (!r.cancelled) r.changes = describe_changes(search, r.order);
  return r;
}

}  // namespace scaleout::sim
