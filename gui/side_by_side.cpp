#include "gui/side_by_side.hpp"

#include <limits>

namespace scaleout::gui {

std::vector<SideBySideRow> side_by_side(const core::RunResult& a, const core::RunResult& b) {
  auto row = [](const char* name, const char* label, const char* unit, double av, double bv) {
    double ratio = av != 0 ? bv / av : std::numeric_limits<double>::quiet_NaN();
    return SideBySideRow{name, label, unit, av, bv, bv - av, ratio};
  };
  return {
      row("step_time_s", "step time", "s", a.step_time_s, b.step_time_s),
      row("throughput_samples_per_s", "throughput", "samples/s", a.throughput_samples_per_s,
          b.throughput_samples_per_s),
      row("scaling_efficiency", "scaling efficiency", "", a.scaling_efficiency,
          b.scaling_efficiency),
      row("phases.comm_s", "communication", "s", a.phases.comm_s, b.phases.comm_s),
      row("phases.exposed_comm_s", "exposed communication", "s", a.phases.exposed_comm_s,
          b.phases.exposed_comm_s),
      row("bytes", "gradient bytes per step", "B", a.bytes, b.bytes),
  };
}

}  // namespace scaleout::gui
