// `scaleout plan PLAN --search`: the best splits of a transformer plan, as a table or JSON.
#pragma once

#include "core/plan.hpp"
#include "sim/split_search.hpp"

namespace scaleout::cli {

// Runs the search and prints it; returns 0, or 1 when no split fits.
int plan_search(const core::Plan& plan, const sim::SplitSearchOptions& options, bool json);

}  // namespace scaleout::cli
