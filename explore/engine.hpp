// The engines as the drivers see them: the sweep, the study, the planner, the split search and
// the curves ask for predictions through this interface alone and include no engine of their own
// (tests/layering holds them to it). An engine says whether it can run a plan (its refusals are
// its own, written once where it runs), predicts one plan, or predicts a batch side by side where
// it can (SimGrid: a child process each).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "sim/sim_options.hpp"
#include "sim/sim_progress.hpp"

namespace scaleout::sim {

enum class Engine { kSim, kAnalytic };
// "sim" | "analytic"; throws core::InputError naming `field` for anything else.
Engine parse_engine(const std::string& text, const std::string& field = "engine");
const char* engine_name(Engine engine);

// How an engine runs what a driver hands it.
struct EngineOptions {
  SimOptions sim;  // the SimGrid engine's fidelity, message cap, shortcuts
  int jobs = 1;    // simulations side by side (child processes)
  const std::atomic<bool>* cancel = nullptr;  // once set, predict_each stops and kills what runs
  // Called about every half second while simulations run, with what they have sent, summed.
  std::function<void(const ProgressReport&)> on_running;
};

// Plans a driver hands an engine, each made when it runs (a sweep may have 100,000).
struct PlanBatch {
  std::function<core::Plan(std::size_t)> plan;
  // Plans whose keys are equal come one after another and share their cluster: an engine may build
  // what they share once. Null: no two share.
  std::function<std::size_t(std::size_t)> alike;
};

class PredictionEngine {
 public:
  using OnDone = std::function<void(std::size_t, core::RunResult&&)>;
  using OnFailed = std::function<void(std::size_t, const std::string& why)>;

  virtual ~PredictionEngine() = default;
  virtual Engine kind() const = 0;
  // Throws this engine's refusal (core::InputError naming the field) when it cannot run `plan`, a
  // validated plan, before any work; predict() refuses the same plans.
  virtual void check(const core::Plan& plan) const = 0;
  // The plans predict() gets until the next call are on `cluster`, need at most `max_devices`
  // devices, and when `one_strategy`, share one strategy section: what they share is built once
  // (the closed form's topology; with one strategy, its groups' collective times by size).
  virtual void prepare(const core::Cluster& cluster, int max_devices, bool one_strategy) = 0;
  virtual core::RunResult predict(const core::Plan& plan) = 0;
  // Plans [begin, end) of `batch`, each ending in `done` or `failed`, called on this thread as
  // each ends. Returns false when cancelled before every plan ended.
  virtual bool predict_each(const PlanBatch& batch, std::size_t begin, std::size_t end,
                            const OnDone& done, const OnFailed& failed) = 0;
  // The plan's gradient exchange of `bytes` alone, without compute, where the engine gives it in
  // closed form (the planner reads a bottleneck from its latency and bandwidth terms); none else.
  virtual std::optional<double> exchange_time(const core::Plan& plan, double bytes) const = 0;
};

std::unique_ptr<PredictionEngine> make_engine(Engine kind, EngineOptions options = {});

}  // namespace scaleout::sim
