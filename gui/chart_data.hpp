// What each chart shows, from the curves: the one place that turns results into chart data.
#pragma once

#include <vector>

#include "explore/split_plan.hpp"
#include "explore/study.hpp"
#include "gui/chart.hpp"
#include "gui/curves.hpp"
#include "gui/measured.hpp"

namespace scaleout::gui {

// Samples/s against workers, one line per strategy, measured runs as dots with their error.
LineChartData throughput_data(const Curves& curves,
                              const std::vector<MeasuredPoint>& measured = {});

// Scaling efficiency (%) against workers, with the crossovers marked and labelled.
LineChartData efficiency_data(const Curves& curves);

// Compute and exposed communication per step (ms) for each strategy at `workers`.
BarChartData breakdown_data(const Curves& curves, int workers);

// Memory per device of each pipeline stage of a model-parallel plan (GB): parameters, gradients,
// optimizer states and activations stacked, the device's memory as the limit. No categories for
// a plan without `parallelism:` or a transformer workload.
BarChartData memory_data(const core::Plan& plan);

// A study's cases: each prediction over its published number (1 is exact), the cases held to a
// tolerance apart from the known gaps, a line at 1.
BarChartData study_data(const sim::StudyOutcome& outcome);
// A crossover study's sweep: the scaling efficiency chart of its curves, titled by the sweep.
LineChartData crossover_data(const sim::CrossoverOutcome& x);

// The staleness histogram of an asynchronous PS result, with its mean, p50, p99 and the
// applied/dropped gradient counts.
HistogramData staleness_data(const core::RunResult& r);

}  // namespace scaleout::gui
