#include "explore/engine.hpp"

#include "core/plan/input_error.hpp"
#include "explore/engines/engines.hpp"

namespace scaleout::sim {

Engine parse_engine(const std::string& text, const std::string& field) {
  if (text == "sim") return Engine::kSim;
  if (text == "analytic") return Engine::kAnalytic;
  throw core::InputError("", 0, field, "unknown engine '" + text + "'; expected sim or analytic");
}

const char* engine_name(Engine engine) { return engine == Engine::kSim ? "sim" : "analytic"; }

std::unique_ptr<PredictionEngine> make_engine(Engine kind, EngineOptions options) {
  if (kind == Engine::kAnalytic) return make_analytic_engine(options.cancel);
  return make_sim_engine(std::move(options));
}

}  // namespace scaleout::sim
