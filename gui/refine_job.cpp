#include "gui/refine_job.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/plan/plan_loader.hpp"
#include "sim/simulator.hpp"

namespace scaleout::gui {

RefineJob::RefineJob(core::Plan plan, std::vector<RefinePoint> points, sim::SimOptions options)
    : plan_(std::move(plan)), points_(std::move(points)), options_(std::move(options)) {}

bool RefineJob::wait_for(const sim::SimChild& child, std::size_t index, int& status) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kEvery = std::chrono::milliseconds(250);
  Clock::time_point start = Clock::now(), next = start + kEvery;
  while (true) {
    pid_t done = ::waitpid(child.pid, &status, WNOHANG);
    if (done == child.pid) return true;
    if (cancelled_) {
      ::kill(child.pid, SIGKILL);
      ::waitpid(child.pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (on_progress_ && Clock::now() >= next) {
      next += kEvery;
      on_progress_(index, sim::read_progress(
                              child, std::chrono::duration<double>(Clock::now() - start).count()));
    }
  }
}

void RefineJob::run(const OnPoint& on_point) {
  for (std::size_t i = 0; i < points_.size() && !cancelled_; ++i) {
    core::Plan plan = plan_;
    plan.strategy.kind = points_[i].strategy;
    if (points_[i].workers != plan.training.workers) plan.strategy.grid.reset();
    plan.training.workers = points_[i].workers;
    try {
      core::validate_plan(plan);
      sim::SimChild child = sim::start_simulation(plan, options_);
      int status = 0;
      if (!wait_for(child, i, status)) {
        std::filesystem::remove(child.result_file);
        break;
      }
      core::RunResult r = sim::collect_simulation(child, status);
      on_point(i, &r, "");
    } catch (const std::exception& e) {
      on_point(i, nullptr, e.what());
    }
  }
}

}  // namespace scaleout::gui
