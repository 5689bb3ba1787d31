// `scaleout plan PLAN --search`: the best splits of a transformer plan, as a table or JSON, and
// with `--refine K` the first K simulated and ranked again.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "explore/split_plan.hpp"
#include "explore/split_refine.hpp"
#include "explore/split_search.hpp"

namespace scaleout::cli {

struct PlanSearchArgs {
  sim::SplitSearchOptions search;
  double memory_margin_percent = 10;   // --memory-margin: sets search.memory_margin
  std::string framework;               // --framework: sets search.framework (empty: the plan's)
  std::vector<std::string> schedules;  // --schedules: sets search.schedules
  std::string emit;                    // --emit megatron: the winner's launch arguments too
  int refine = 0;                      // splits to simulate (0: none)
  int jobs = 1;
  double max_events = sim::kDefaultMaxEvents;
  std::string progress = "auto";
  bool json = false;
  // With a target (sequences/s > 0): the smallest cluster up to `max_workers` whose best split
  // reaches it, and that cluster's splits.
  double target = 0;
  int max_workers = 1024;
  std::optional<double> price;
};

// Whether any search-only option was given (they need --search).
bool search_options_given(const PlanSearchArgs& args);
// Sets `args.search` from the command line's framework, schedules and margin.
void resolve_search_options(PlanSearchArgs& args);

// Runs the search (and the refinement) and prints it; returns 0, or 1 when no split fits or none
// of those refined could be simulated.
int plan_search(const core::Plan& plan, const PlanSearchArgs& args);

}  // namespace scaleout::cli
