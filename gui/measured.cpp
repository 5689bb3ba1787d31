#include "gui/measured.hpp"

#include <fstream>

#include "core/compare.hpp"
#include "core/input_error.hpp"
#include "core/plan_loader.hpp"
#include "sim/analytic.hpp"

namespace scaleout::gui {

MeasuredPoint load_measured(const std::string& path, const core::Plan& plan) {
  std::ifstream in(path);
  if (!in) throw core::InputError(path, 0, "", "cannot open file (does it exist?)");
  MeasuredPoint m;
  m.file = path;
  try {
    m.measured = core::result_from_json(nlohmann::json::parse(in));
  } catch (const std::exception& e) {
    throw core::InputError(path, 0, "", std::string("not a result JSON: ") + e.what());
  }
  auto kind = core::parse_strategy_kind(m.measured.strategy);
  if (!kind)
    throw core::InputError(path, 0, "strategy", "unknown strategy '" + m.measured.strategy + "'");
  core::Plan p = plan;
  p.strategy.kind = *kind;
  if (m.measured.workers != p.training.workers) p.strategy.grid.reset();
  p.training.workers = m.measured.workers;
  try {
    core::validate_plan(p);
    m.predicted = sim::predict_analytic(p);
  } catch (const core::InputError& e) {
    throw core::InputError(path, 0, "",
                           std::string("cannot predict this run on the plan: ") + e.what());
  }
  m.throughput_error = core::relative_error(m.predicted.throughput_samples_per_s,
                                            m.measured.throughput_samples_per_s);
  m.step_time_error = core::relative_error(m.predicted.step_time_s, m.measured.step_time_s);
  return m;
}

}  // namespace scaleout::gui
