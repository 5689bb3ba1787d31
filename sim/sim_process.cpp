// Each simulation runs in a child process: SimGrid keeps one engine per process, and a crash in
// one simulation then cannot take the caller down.
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/files/temp_files.hpp"
#include "core/plan/input_error.hpp"
#include "sim/fidelity_check.hpp"
#include "sim/simulator.hpp"
#include "sim/work_estimate.hpp"

namespace scaleout::sim {

using core::Plan;
using core::RunResult;

double check_simulation(const Plan& plan, const SimOptions& options) {
  if (plan.parallelism && plan.strategy.kind == core::StrategyKind::kPs)
    throw core::InputError(plan.file, plan.strategy.line, "strategy",
                           "the SimGrid engine exchanges a model-parallel plan's data group with "
                           "collective strategies; for a parameter server use --engine analytic");
  return check_work(plan, fidelity_for(plan, options.fidelity), options.max_events).messages;
}

SimChild start_simulation(const Plan& plan, const SimOptions& options) {
  // Before any work: refused at once.
  double messages = check_simulation(plan, options);
  std::shared_ptr<SimProgress> progress = make_shared_progress();
  std::string name = core::make_temp_file("scaleout-sim");
  std::fflush(nullptr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    core::remove_temp(name);
    throw std::runtime_error("cannot start a simulation process (fork failed)");
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);        // never outlive the caller,
    if (::getppid() != parent) std::_Exit(1);  // not even one that died before the line above
    count_progress_into(progress.get());
    nlohmann::json out;
    try {
      out["result"] = core::to_json(simulate_here(plan, options));
    } catch (const core::InputError& e) {
      out["input_error"] = e.what();
    } catch (const std::exception& e) {
      out["error"] = e.what();
    }
    // Opened without creating: when the caller was stopped and removed it, nothing is written.
    std::fstream(name, std::ios::in | std::ios::out) << out.dump();
    std::_Exit(0);
  }
  core::track_child(pid);
  return SimChild{pid, name, std::move(progress), messages};
}

RunResult finish_simulation(const SimChild& child) {
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  core::untrack_child(child.pid);
  return collect_simulation(child, status);
}

ProgressReport read_progress(const SimChild& child, double elapsed_s) {
  ProgressReport r;
  if (child.progress) {
    r.messages = child.progress->messages.load(std::memory_order_relaxed);
    r.simulated_s = child.progress->simulated_s.load(std::memory_order_relaxed);
  }
  r.estimated_messages = child.estimated_messages;
  r.elapsed_s = elapsed_s;
  return r;
}

namespace {

ProgressReport report(const SimChild& child, std::chrono::steady_clock::time_point start) {
  return read_progress(
      child, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace

RunResult finish_simulation(const SimChild& child, const OnProgress& on_progress, double every_s) {
  auto start = std::chrono::steady_clock::now();
  auto next = start + std::chrono::duration<double>(every_s);
  int status = 0;
  // Polls: a child that ends is seen within 20 ms.
  while (true) {
    pid_t done = ::waitpid(child.pid, &status, WNOHANG);
    if (done == child.pid) break;
    if (done < 0 && errno != EINTR) {
      core::untrack_child(child.pid);
      core::remove_temp(child.result_file);
      throw std::runtime_error("lost the simulation process (waitpid failed)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (std::chrono::steady_clock::now() < next) continue;
    on_progress(report(child, start));
    next += std::chrono::duration<double>(every_s);
  }
  ProgressReport last = report(child, start);
  last.finished = true;
  on_progress(last);
  return collect_simulation(child, status);
}

RunResult collect_simulation(const SimChild& child, int status) {
  std::ifstream in(child.result_file);
  std::stringstream text;
  text << in.rdbuf();
  core::untrack_child(child.pid);
  core::remove_temp(child.result_file);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.str().empty()) {
    std::string why = WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                          : "exit code " + std::to_string(WEXITSTATUS(status));
    throw std::runtime_error("the simulation process failed (" + why + ")");
  }
  auto out = nlohmann::json::parse(text.str());
  if (out.contains("input_error")) throw core::InputError(out["input_error"].get<std::string>());
  if (out.contains("error"))
    throw std::runtime_error("simulation failed: " + out["error"].get<std::string>());
  return core::result_from_json(out.at("result"));
}

RunResult simulate(const Plan& plan, const SimOptions& options) {
  return with_fidelity_check(plan, options, finish_simulation(start_simulation(plan, options)));
}

RunResult simulate(const Plan& plan, const SimOptions& options, const OnProgress& on_progress) {
  return with_fidelity_check(plan, options,
                             finish_simulation(start_simulation(plan, options), on_progress));
}

}  // namespace scaleout::sim
