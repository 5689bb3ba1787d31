#include "gui/measured.hpp"

#include <fstream>

#include "analytic/analytic.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/results/compare.hpp"

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
  // Its own strategy and size, on the window's cluster and model: a run of another cluster or
  // model has no prediction here to be compared with.
  auto differs = [](const std::string& a, const std::string& b) { return !a.empty() && a != b; };
  bool other_cluster = differs(m.measured.cluster, plan.cluster.name);
  if (other_cluster || differs(m.measured.workload, plan.workload.name))
    throw core::InputError(path, 0, other_cluster ? "cluster" : "workload",
                           "a run of " + m.measured.workload + " on " + m.measured.cluster +
                               ", not of the open plan's " + plan.workload.name + " on " +
                               plan.cluster.name + ": open its plan to compare it");
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
