// Goodput against cluster size for a plan with failure rates (`reliability:`): what a long run
// keeps of its wall time, expected and as the P10-P90 of sampled runs.
#pragma once

#include <string>

#include "gui/chart.hpp"
#include "gui/curves.hpp"

namespace scaleout::gui {

// Three lines for `strategy`'s curve (else the first curve with a reliability outcome): the
// expected goodput and the P10 and P90 of the sampled runs, in percent; each point's tip gives the
// time to train (P10, P50, P90), the job's mean time between failures and the best checkpoint
// interval. No lines when no point carries a reliability outcome.
LineChartData goodput_data(const Curves& curves, const std::string& strategy);

}  // namespace scaleout::gui
