// What-if sweeps: one plan over many worker counts and strategies, one CSV row each. Rows are
// appended as they finish, so an interrupted sweep keeps its complete rows and `resume` skips them.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "explore/engine.hpp"

namespace scaleout::sim {

// "8:1024:x2" (8, 16, ..., 1024), "8:64:+8" (8, 16, ..., 64) or "8,16,100". Throws
// core::InputError naming `field` (the caller's name for the list) for anything else.
std::vector<int> parse_worker_list(const std::string& text, const std::string& field = "workers");

// Part K of N of a sweep's grid: the points whose index in the grid (strategies in the order
// given, each over the worker counts in the order given) is K modulo N.
struct Shard {
  int index = 0;  // K, 0 <= K < N
  int count = 1;  // N
};

// A plan field `sweep --vary` sets to each of `values` in turn: its dotted name, resolved
// (core::resolve_field), and the values as given.
struct Variation {
  std::string field;
  std::vector<std::string> values;
};

struct SweepOptions {
  // The grid: the cross product of the variations' values (the first varies slowest), then the
  // strategies, then the worker counts.
  std::vector<Variation> vary;
  std::vector<int> workers;
  std::vector<core::StrategyKind> strategies;
  Engine engine = Engine::kSim;
  Fidelity fidelity = Fidelity::kFast;    // sim only
  double max_events = kDefaultMaxEvents;  // sim only: a point estimated above it is refused
  int jobs = 2;                           // simulations run side by side (separate processes)
  bool resume = false;
  std::string csv_path;  // empty: no CSV
  // Run this shard of the grid only; its CSV rows carry the shard columns (sweep_csv.hpp), which
  // `merge_shards` checks and strips.
  std::optional<Shard> shard;
  // Scaling efficiency against this worker count too (RunResult::baseline_efficiency), for each
  // strategy against its own row there; 0: none. It must be one of `workers` (InputError): its
  // points run first (also when resumed or another shard's, then without a row of their own).
  int baseline_workers = 0;
  // Called on the sweep's thread: each row as it finishes, and rows done of the total after each.
  std::function<void(const core::RunResult&)> on_row;
  std::function<void(std::size_t done, std::size_t total)> on_progress;
  // Called on the sweep's thread about every half second while simulations run: the messages the
  // points being simulated have sent so far, against their work estimates (both summed).
  std::function<void(const ProgressReport&)> on_running;
  // Set from another thread to stop: no new row starts, running simulations are killed, and the
  // rows already finished stay (in the CSV and the summary).
  const std::atomic<bool>* cancel = nullptr;
};

struct SweepSummary {
  std::vector<core::RunResult> rows;                 // rows computed in this call, in sweep order
  std::vector<std::vector<std::string>> row_values;  // each row's varied values (`vary`)
  int skipped = 0;                                   // rows already in the CSV (resume)
  std::vector<std::string> errors;                   // rows that could not run, with the reason
  bool cancelled = false;
};

// A hash of what the sweep predicts from (the plan as loaded, the engine, the fidelity and the
// fields varied; not the grid's worker counts, kinds and values), stamped on every CSV row as
// `plan_hash`: resuming a CSV written for another plan is refused.
std::string sweep_plan_hash(const core::Plan& base, const SweepOptions& options);

// A hash of the plan (sweep_plan_hash) and the grid: the values varied, the strategies and worker
// counts in order.
// Every row of a shard carries it as `grid_hash`; shards of one sweep have the same.
std::string sweep_grid_hash(const core::Plan& base, const SweepOptions& options);

// 64-bit FNV-1a of `text`, as 16 hex digits: core::hash_hex (core/plan/plan_stamp.hpp).
using core::hash_hex;

// The CSV columns; the first eight are the documented contract.
const std::vector<std::string>& sweep_columns();

// Runs the sweep. Throws std::runtime_error when the CSV cannot be written, or when resuming a
// file whose header differs.
SweepSummary run_sweep(const core::Plan& base, const SweepOptions& options);

}  // namespace scaleout::sim
