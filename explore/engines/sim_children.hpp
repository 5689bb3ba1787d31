// Simulations in child processes, at most `slots` at a time (one SimGrid engine each). Reaps
// only its own children (a GUI or another caller may have others) and kills what still runs when
// cancelled or destroyed.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "core/plan/plan.hpp"
#include "sim/simulator.hpp"

namespace scaleout::sim {

class SimChildren {
 public:
  explicit SimChildren(int slots);
  ~SimChildren();
  SimChildren(const SimChildren&) = delete;
  SimChildren& operator=(const SimChildren&) = delete;

  bool has_room() const;
  bool empty() const { return running_.empty(); }
  // Starts the simulation of `plan`; `index` is the caller's name for it.
  void start(const core::Plan& plan, const SimOptions& options, std::size_t index);
  // Waits until one child ended or `cancel` is set; returns the child, its index and wait status.
  // `on_tick`, when set, is called about every half second meanwhile with what the running
  // children have sent, summed (and their estimates summed).
  using OnTick = std::function<void(const ProgressReport&)>;
  std::optional<std::tuple<SimChild, std::size_t, int>> wait_one(const std::atomic<bool>* cancel,
                                                                 const OnTick& on_tick = {});
  // Kills and reaps every child still running, removing their result files.
  void kill_all();

 private:
  ProgressReport running_progress() const;

  int slots_;
  std::map<pid_t, std::pair<SimChild, std::size_t>> running_;
};

}  // namespace scaleout::sim
