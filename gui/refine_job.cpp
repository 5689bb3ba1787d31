#include "gui/refine_job.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/plan_loader.hpp"
#include "sim/simulator.hpp"

namespace scaleout::gui {

RefineJob::RefineJob(core::Plan plan, std::vector<RefinePoint> points, sim::SimOptions options)
    : plan_(std::move(plan)), points_(std::move(points)), options_(std::move(options)) {}

bool RefineJob::wait_for(pid_t pid, int& status) {
  while (true) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return true;
    if (cancelled_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
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
      if (!wait_for(child.pid, status)) {
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
