// The two prediction engines behind explore/engine.hpp: the only files of explore/ that include
// an engine's own headers.
#pragma once

#include <atomic>
#include <memory>

#include "explore/engine.hpp"

namespace scaleout::sim {

std::unique_ptr<PredictionEngine> make_analytic_engine(const std::atomic<bool>* cancel);
std::unique_ptr<PredictionEngine> make_sim_engine(EngineOptions options);

}  // namespace scaleout::sim
