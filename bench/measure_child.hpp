// Runs one simulation in its own process and measures it: wall time, and the child's CPU time and
// peak resident memory from wait4().
#pragma once

#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <limits>

#include "core/files/temp_files.hpp"
#include "sim/simulator.hpp"

namespace scaleout::bench {

struct Measured {
  core::RunResult result;  // empty when stopped
  double wall_s = 0;
  double cpu_s = 0;  // the child's user + system time
  double peak_mb = 0;
  bool stopped = false;          // ran past the budget and was killed
  sim::ProgressReport progress;  // what it had sent when it ended or was stopped
};

// The allocator this program runs on: jemalloc when it was linked in (SCALEOUT_JEMALLOC), which
// exports mallctl; glibc's malloc otherwise. Figures taken on the two differ by up to 1.7x.
inline const char* allocator_name() {
  return ::dlsym(RTLD_DEFAULT, "mallctl") ? "jemalloc" : "glibc malloc";
}

// `max_events`: the simulator's refusal limit (sim/work_estimate.hpp), raised for sizes a benchmark
// means to reach. `budget_s` > 0: a simulation still running after that much wall time is killed
// and reported as stopped, with the messages it had sent.
// `striped`: a node's NICs stay rails at any size (the simulator bundles them at scale,
// sim/rail_bundle.hpp).
inline Measured measure_simulation(const core::Plan& plan, const std::string& fidelity,
                                   double max_events = sim::kDefaultMaxEvents, double budget_s = 0,
                                   bool striped = false) {
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  sim::SimOptions options{sim::parse_fidelity(fidelity), ""};
  options.max_events = max_events;
  if (striped) options.shortcuts.bundle_rails_from = std::numeric_limits<long long>::max();
  sim::SimChild child = sim::start_simulation(plan, options);
  int status = 0;
  rusage usage{};
  Measured m;
  while (::wait4(child.pid, &status, WNOHANG, &usage) == 0) {
    if (budget_s > 0 && elapsed() > budget_s) {
      m.progress = sim::read_progress(child, elapsed());
      m.stopped = true;
      ::kill(child.pid, SIGKILL);
      ::wait4(child.pid, &status, 0, &usage);
      break;
    }
    ::usleep(20000);
  }
  m.wall_s = elapsed();
  m.peak_mb = usage.ru_maxrss / 1024.0;
  m.cpu_s = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec +
            usage.ru_stime.tv_usec * 1e-6;
  if (m.stopped) {
    core::untrack_child(child.pid);
    core::remove_temp(child.result_file);
    return m;
  }
  m.progress = sim::read_progress(child, m.wall_s);
  m.result = sim::collect_simulation(child, status);
  return m;
}

}  // namespace scaleout::bench
