// Checking the search's answer by simulation: the best K splits the closed form ranked, each run
// through SimGrid (in child processes, side by side), ranked again by the simulated step, with
// where the order changed said in words.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/results/result.hpp"
#include "explore/engine.hpp"
#include "explore/split_search.hpp"

namespace scaleout::sim {

struct RefineOptions {
  int count = 0;  // the first `count` of the search's list (all of them when fewer)
  int jobs = 1;   // simulations side by side
  SimOptions sim;
  const std::atomic<bool>* cancel = nullptr;
  // The running simulations' messages, about every 0.5 s.
  std::function<void(const ProgressReport&)> on_running;
};

struct RefinedSplit {
  int closed_form_rank = 0;  // 1-based place in the search's list
  std::optional<core::RunResult> simulated;
  std::string error;  // why it was not simulated (too many messages, ...), when it was not
};

struct SplitRefinement {
  // Fastest simulated step first (steps within 0.1% of each other keep the closed form's order);
  // those not simulated last.
  std::vector<RefinedSplit> order;
  std::vector<std::string> changes;  // "#3 by the closed form is #1 by simulation", ...
  bool cancelled = false;
};

SplitRefinement refine_splits(const SplitSearch& search, const RefineOptions& options);

}  // namespace scaleout::sim
