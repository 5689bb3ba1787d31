// Two results side by side: the numbers a person compares first (step, throughput, scaling
// efficiency, communication, exposed communication, gradient bytes) for A and B, with B - A and
// B / A. Plain data; the dialog in compare_dialog.hpp shows it.
#pragma once

#include <string>
#include <vector>

#include "core/results/result.hpp"

namespace scaleout::gui {

struct SideBySideRow {
  std::string name;   // the result key: "step_time_s", "phases.comm_s", ...
  std::string label;  // for people: "step time"
  std::string unit;   // "s", "samples/s", "", "B"
  double a = 0, b = 0;
  double difference = 0;  // b - a
  double ratio = 0;       // b / a; NaN when a is 0
};

// In the order of the sentence above.
std::vector<SideBySideRow> side_by_side(const core::RunResult& a, const core::RunResult& b);

}  // namespace scaleout::gui
