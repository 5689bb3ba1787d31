// What-if sweeps: one plan over many worker counts and strategies, one CSV row each. Rows are
// appended as they finish, so an interrupted sweep keeps its complete rows and `resume` skips them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/result.hpp"

namespace scaleout::sim {

// "8:1024:x2" (8, 16, ..., 1024), "8:64:+8" (8, 16, ..., 64) or "8,16,100". Throws
// core::InputError naming the field "--workers" for anything else.
std::vector<int> parse_worker_list(const std::string& text);

struct SweepOptions {
  std::vector<int> workers;
  std::vector<core::StrategyKind> strategies;
  std::string engine = "sim";     // sim | analytic
  std::string fidelity = "fast";  // sim only
  int jobs = 2;                   // simulations run side by side (separate processes)
  bool resume = false;
  std::string csv_path;
  bool progress = false;  // rows done, rate and time left on stderr
};

struct SweepSummary {
  std::vector<core::RunResult> rows;  // rows computed in this call, in sweep order
  int skipped = 0;                    // rows already in the CSV (resume)
  std::vector<std::string> errors;    // rows that could not run, with the reason
};

// The CSV columns; the first eight are the documented contract.
const std::vector<std::string>& sweep_columns();

// Runs the sweep. Throws std::runtime_error when the CSV cannot be written, or when resuming a
// file whose header differs.
SweepSummary run_sweep(const core::Plan& base, const SweepOptions& options);

}  // namespace scaleout::sim
