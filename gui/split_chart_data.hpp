// A model-parallel plan's charts, as a team chooses between splits: tokens/s and MFU against
// cluster size for the best split at each size and for the plan's own split, and where the step
// of the best splits at one size goes, by kind.
#pragma once

#include <vector>

#include "explore/split_plan.hpp"
#include "gui/chart.hpp"
#include "gui/curves.hpp"
#include "gui/measured.hpp"

namespace scaleout::gui {

// The plan's own split at each size: its strategy's curve (null where it cannot run).
std::vector<const core::RunResult*> own_split_points(const core::Plan& plan, const Curves& curves);

// Tokens/s (mfu false) or MFU in % (true) against workers: "best split" (the search's answer at
// each size, its split in each point's tip with its memory and bottleneck) and "plan's split".
LineChartData split_scaling_data(const std::vector<sim::SizeBest>& best,
                                 const std::vector<const core::RunResult*>& own,
                                 const std::vector<int>& workers, bool mfu);

// The step (ms) of each split by kind: compute, tensor all-reduces, expert all-to-alls, the data
// group's exchange and the pipeline bubble, which add up to the step; `own` (may be null) first.
// `numbered`: the bars are "plan", "#1", "#2"... (a table beside them gives the splits); else
// each names its tensor x pipeline x data.
BarChartData split_breakdown_data(const std::vector<sim::SplitCandidate>& top,
                                  const core::RunResult* own, int workers, bool numbered = false);

// Measured runs on the tokens/s chart as large dots: samples/s times the plan's `sequence`.
void add_measured_tokens(LineChartData& tokens, const std::vector<MeasuredPoint>& measured,
                         int sequence);

// Whether the window and --render-plan chart a plan by its splits: a transformer with
// `parallelism:`.
bool charts_splits(const core::Plan& plan);

}  // namespace scaleout::gui
