#include "explore/engines/sim_children.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include "core/files/temp_files.hpp"

namespace scaleout::sim {

SimChildren::SimChildren(int slots) : slots_(std::max(1, slots)) {}

SimChildren::~SimChildren() { kill_all(); }

bool SimChildren::has_room() const { return static_cast<int>(running_.size()) < slots_; }

void SimChildren::start(const core::Plan& plan, const SimOptions& options, std::size_t index) {
  SimChild child = start_simulation(plan, options);
  running_[child.pid] = {child, index};
}

ProgressReport SimChildren::running_progress() const {
  ProgressReport sum;
  for (const auto& [pid, entry] : running_) {
    ProgressReport one = read_progress(entry.first, 0);
    sum.messages += one.messages;
    sum.estimated_messages += one.estimated_messages;
  }
  return sum;
}

std::optional<std::tuple<SimChild, std::size_t, int>> SimChildren::wait_one(
    const std::atomic<bool>* cancel, const OnTick& on_tick) {
  constexpr auto kEvery = std::chrono::milliseconds(500);
  auto next = std::chrono::steady_clock::now() + kEvery;
  while (!(cancel && cancel->load())) {
    if (on_tick && std::chrono::steady_clock::now() >= next) {
      on_tick(running_progress());
      next += kEvery;
    }
    for (auto it = running_.begin(); it != running_.end(); ++it) {
      int status = 0;
      pid_t pid = ::waitpid(it->first, &status, WNOHANG);
      if (pid == 0 || (pid < 0 && errno == EINTR)) continue;
      auto [child, index] = it->second;
      if (pid > 0) core::untrack_child(pid);
      running_.erase(it);
      return std::make_tuple(child, index, status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return std::nullopt;
}

void SimChildren::kill_all() {
  for (auto& [pid, entry] : running_) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    core::untrack_child(pid);
    core::remove_temp(entry.first.result_file);
  }
  running_.clear();
}

}  // namespace scaleout::sim
