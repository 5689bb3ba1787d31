// Refining analytic points with the simulator: one SimGrid simulation per point, each in its own
// child process (sim::start_simulation), run from a worker thread and cancellable at any moment.
// No Qt here: the window runs it on a QThread and posts the points back to its own thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "sim/simulator.hpp"

namespace scaleout::gui {

// Refine with SimGrid simulates the sizes up to this many workers (seconds, not minutes).
constexpr int kRefineMaxWorkers = 256;

struct RefinePoint {
  core::StrategyKind strategy = core::StrategyKind::kRing;
  int workers = 0;
};

class RefineJob {
 public:
  // Called after each point: its index, the result (null when it failed) and the reason.
  using OnPoint = std::function<void(std::size_t, const core::RunResult*, const std::string&)>;

  // `options` apply to every point (a trace path: one point, or each overwrites it).
  RefineJob(core::Plan plan, std::vector<RefinePoint> points, sim::SimOptions options = {});

  // Called about every quarter second while a point simulates (its index, what its child counted),
  // on run()'s thread. Set before run().
  using OnProgress = std::function<void(std::size_t, const sim::ProgressReport&)>;
  void on_progress(OnProgress callback) { on_progress_ = std::move(callback); }

  // Simulates the points in order until done or cancelled. Call from one thread only.
  void run(const OnPoint& on_point);
  // From any thread: stops run() soon, killing the simulation in flight.
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }
  const std::vector<RefinePoint>& points() const { return points_; }

 private:
  // Waits for the child of point `index`; returns false (child killed and reaped) when cancelled.
  bool wait_for(const sim::SimChild& child, std::size_t index, int& status);

  core::Plan plan_;
  std::vector<RefinePoint> points_;
  sim::SimOptions options_;
  OnProgress on_progress_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace scaleout::gui
