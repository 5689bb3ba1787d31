#include "exec/local_run.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "core/atomic_file.hpp"
#include "core/input_error.hpp"
#include "core/rank_plan.hpp"
#include "core/strategies/ps_training.hpp"
#include "core/topology.hpp"
#include "core/trace.hpp"
#include "exec/rank_main.hpp"

namespace scaleout::exec {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes this rank's report, then waits until every rank reported (or the deadline passed):
// closing its connections while a peer still finishes the last barrier would fail that peer.
void report_and_wait(const fs::path& dir, int rank, int size, std::chrono::milliseconds timeout,
                     const nlohmann::json& report) {
  core::write_file_atomic((dir / ("rank-" + std::to_string(rank) + ".json")).string(),
                          report.dump());
  auto until = std::chrono::steady_clock::now() + timeout;
  for (int r = 0; r < size && std::chrono::steady_clock::now() < until;) {
    std::string name = "rank-" + std::to_string(r);
    if (fs::exists(dir / (name + ".json")) || fs::exists(dir / (name + ".err"))) {
      ++r;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
}

// Every rank's report from `dir`; throws RunFailed naming a rank that left none.
std::vector<nlohmann::json> read_reports(const fs::path& dir, int size) {
  std::vector<nlohmann::json> reports;
  for (int r = 0; r < size; ++r) {
    fs::path err = dir / ("rank-" + std::to_string(r) + ".err");
    if (fs::exists(err))
      throw RunFailed("rank " + std::to_string(r) + " failed: " + read_file(err));
    nlohmann::json report = nlohmann::json::parse(
        read_file(dir / ("rank-" + std::to_string(r) + ".json")), nullptr, false);
    if (report.is_discarded())
      throw RunFailed("rank " + std::to_string(r) + " ended without a report");
    reports.push_back(std::move(report));
  }
  return reports;
}

// The child side: run the rank, write its report (or its error), exit without returning.
[[noreturn]] void child(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
                        const fs::path& dir, pid_t launcher) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);          // never outlive the launcher,
  if (::getppid() != launcher) std::_Exit(1);  // not even one that died before the line above
  int code = 0;
  try {
    run_rank(plan, options, setup, [&](const nlohmann::json& report) {
      report_and_wait(dir, setup.rank, setup.size, options.timeout, report);
    });
  } catch (const std::exception& e) {
    std::ofstream(dir / ("rank-" + std::to_string(setup.rank) + ".err")) << e.what();
    code = 1;
  }
  std::_Exit(code);
}

void kill_all(const std::map<pid_t, int>& running) {
  for (const auto& [pid, rank] : running) ::kill(pid, SIGKILL);
  for (const auto& [pid, rank] : running) ::waitpid(pid, nullptr, 0);
}

// The keys every executed result starts from.
core::RunResult measured_result(const core::Plan& plan, int servers, const ExecOptions& options) {
  const char* engine = options.backend == Backend::kCuda ? "cuda" : "cpu";
  return core::result_header(plan, engine, "measured", servers);
}

// Each rank's clock starts when its process does; within one rank the spans are exact.
void write_ps_trace(const core::Plan& plan, const std::vector<nlohmann::json>& reports,
                    const std::string& path) {
  core::Trace trace;
  for (int w = 0; w < plan.training.workers; ++w) {
    int track = trace.add_track("worker " + std::to_string(w));
    for (const auto& s : reports[w]["ps_steps"]) {
      double start = s["start"], pull_end = s["pull_end"], compute_end = s["compute_end"],
             end = s["end"];
      trace.span(track, "pull", "comm", start, pull_end - start);
      trace.span(track, "compute", "compute", pull_end, compute_end - pull_end);
      trace.span(track, "push", "comm", compute_end, end - compute_end);
    }
  }
  trace.write(path, std::string("cpu ps, ") + std::to_string(plan.training.workers) + " workers");
}

void write_collective_trace(const core::Plan& plan, const std::vector<nlohmann::json>& reports,
                            const std::string& path) {
  core::Trace trace;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    int w = static_cast<int>(r);
    int track = trace.add_track(w < plan.training.workers
                                    ? "worker " + std::to_string(w)
                                    : "server " + std::to_string(w - plan.training.workers));
    for (const auto& p : reports[r]["phases"])
      trace.span(track, p[0], p[1], p[2], p[3].get<double>() - p[2].get<double>());
  }
  trace.write(path, "cpu " + std::string(core::strategy_name(plan.strategy.kind)) + ", " +
                        std::to_string(plan.training.workers) + " workers");
}

// A parameter-server training run: workers report their steps on their own clocks, servers their
// staleness, accepted gradients and the check of their sums.
core::RunResult aggregate_ps(const core::Plan& plan, const std::vector<nlohmann::json>& reports,
                             int servers, const ExecOptions& options) {
  int workers = plan.training.workers;
  core::RunResult r = measured_result(plan, servers, options);
  double span = 0, compute = 0, comm = 0;
  long steps = 0;
  for (int w = 0; w < workers; ++w) {
    const auto& st = reports[w]["ps_steps"];
    if (st.empty()) continue;
    span = std::max(span, reports[w]["done"].get<double>() - st.front()["start"].get<double>());
    for (const auto& s : st) {
      compute += s["compute_end"].get<double>() - s["pull_end"].get<double>();
      comm += (s["pull_end"].get<double>() - s["start"].get<double>()) +
              (s["end"].get<double>() - s["compute_end"].get<double>());
      ++steps;
    }
  }
  std::vector<long> histogram;
  for (int j = 0; j < servers; ++j) {
    const auto& rep = reports[workers + j];
    std::vector<long> h = rep["staleness"].get<std::vector<long>>();
    if (h.size() > histogram.size()) histogram.resize(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) histogram[i] += h[i];
    r.wrong += rep["wrong"].get<long>();
    if (j == 0) {  // each gradient reaches every shard as one piece: count it once
      r.gradients.applied = rep["applied"].get<long>();
      r.gradients.dropped = rep["dropped"].get<long>();
    }
  }
  r.staleness = core::staleness_from_histogram(histogram);
  int per_worker = plan.training.steps;
  r.step_time_s = span / per_worker;
  // As the simulator counts them: step s ends when the last worker is through its step s, each
  // worker's times taken from its own start (ranks on several hosts have their own clocks).
  std::vector<double> step_end(per_worker, 0.0);
  for (int w = 0; w < workers; ++w) {
    const auto& st = reports[w]["ps_steps"];
    if (st.empty()) continue;
    double start = st.front()["start"].get<double>();
    for (const auto& s : st) {
      int k = s["step"].get<int>();
      if (k < per_worker) step_end[k] = std::max(step_end[k], s["end"].get<double>() - start);
    }
  }
  if (per_worker > 0) step_end.back() = std::max(step_end.back(), span);  // through the last push
  double previous = 0;
  for (int s = 0; s < per_worker; ++s) {
    step_end[s] = std::max(step_end[s], previous);
    r.steps.push_back({s, step_end[s] - previous});
    previous = step_end[s];
  }
  r.phases.compute_s = steps ? compute / steps : 0;
  r.phases.comm_s = steps ? comm / steps : 0;
  core::fill_derived(r, plan.training.batch_per_worker);
  r.throughput_samples_per_s =
      span > 0 ? r.gradients.applied * plan.training.batch_per_worker / span : 0;
  return r;
}

core::RunResult aggregate(const core::Plan& plan, const std::vector<nlohmann::json>& reports,
                          int servers, const ExecOptions& options, double wall) {
  if (core::uses_ps_training(plan)) {
    core::RunResult r = aggregate_ps(plan, reports, servers, options);
    if (!options.trace_path.empty()) write_ps_trace(plan, reports, options.trace_path);
    r.resilience.wall_s = wall;
    return r;
  }
  int workers = plan.training.workers, steps = plan.training.steps;
  core::RunResult r = measured_result(plan, servers, options);
  double step_sum = 0, compute_sum = 0, comm_sum = 0;
  for (int s = 0; s < steps; ++s) {
    double step = 0, comm = 0, compute = 0;
    for (int w = 0; w < workers; ++w) {
      const auto& st = reports[w]["steps"][s];
      double start = st["start"], compute_end = st["compute_end"], end = st["end"];
      step = std::max(step, end - start);
      comm = std::max(comm, st["comm_s"].get<double>());
      compute += (compute_end - start) / workers;
      r.wrong += st["wrong"].get<long>();
    }
    r.steps.push_back({s, step});
    step_sum += step;
    compute_sum += compute;
    comm_sum += comm;
  }
  if (!options.trace_path.empty()) write_collective_trace(plan, reports, options.trace_path);
  r.step_time_s = step_sum / steps;
  r.phases.compute_s = compute_sum / steps;
  r.phases.comm_s = comm_sum / steps;
  core::fill_derived(r, plan.training.batch_per_worker);
  r.gradients.applied = static_cast<long>(workers) * steps;
  r.staleness = core::staleness_from_histogram({r.gradients.applied});
  r.resilience.wall_s = wall;
  // Gloo's algorithms: a run lasts as long as its slowest rank; the median run, per algorithm.
  const auto& first = reports[0]["baselines"];
  for (std::size_t b = 0; b < first.size(); ++b) {
    core::Baseline base;
    base.name = first[b]["name"];
    std::vector<double> runs(first[b]["times_s"].size(), 0.0);
    for (int w = 0; w < workers; ++w) {
      const auto& mine = reports[w]["baselines"][b];
      for (std::size_t i = 0; i < runs.size(); ++i)
        runs[i] = std::max(runs[i], mine["times_s"][i].get<double>());
      base.wrong += mine["wrong"].get<long>();
    }
    std::sort(runs.begin(), runs.end());
    base.time_s = runs.empty() ? 0 : runs[runs.size() / 2];
    base.algbw_Bps = r.bytes / base.time_s;
    base.busbw_Bps = base.algbw_Bps * 2.0 * (workers - 1) / workers;
    r.baselines.push_back(base);
  }
  return r;
}

// Why rank `rank` ended unsuccessfully with wait status `status`.
std::string rank_failure(const fs::path& dir, int rank, int status) {
  fs::path err = dir / ("rank-" + std::to_string(rank) + ".err");
  if (fs::exists(err)) return "rank " + std::to_string(rank) + " failed: " + read_file(err);
  if (WIFSIGNALED(status))
    return "rank " + std::to_string(rank) + " died (signal " + std::to_string(WTERMSIG(status)) +
           ")";
  return "rank " + std::to_string(rank) + " exited with code " +
         std::to_string(WEXITSTATUS(status));
}

// Waits for every rank (only this run's processes: a caller's other children are left alone);
// returns the first failure, or "" when all succeeded. Every transfer has its own deadline, so a
// rank that waits on a dead peer fails by itself; the overall deadline is a guard.
std::string wait_for_ranks(std::map<pid_t, int>& running, const fs::path& dir,
                           std::chrono::steady_clock::time_point deadline) {
  while (!running.empty()) {
    bool reaped = false;
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      pid_t pid = ::waitpid(it->first, &status, WNOHANG);
      if (pid == 0 || (pid < 0 && errno == EINTR)) {
        ++it;
        continue;
      }
      int rank = it->second;
      it = running.erase(it);
      reaped = true;
      if (pid > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        return rank_failure(dir, rank, status);
    }
    if (reaped) continue;
    if (std::chrono::steady_clock::now() > deadline)
      return "the run passed its deadline; ranks still running: " + std::to_string(running.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return "";
}

// Other ranks' own errors help tell the cause from its echoes.
std::string other_ranks_errors(const fs::path& dir, int size, const std::string& failure) {
  std::string out;
  for (int r = 0; r < size; ++r) {
    fs::path err = dir / ("rank-" + std::to_string(r) + ".err");
    if (fs::exists(err) &&
        failure.find("rank " + std::to_string(r) + " failed") == std::string::npos)
      out += "\n  (rank " + std::to_string(r) + ": " + read_file(err) + ")";
  }
  return out;
}

}  // namespace

void check_executable(const core::Plan& plan) {
  if (!plan.resilience.failures.empty() || plan.stragglers.random != core::SlowdownKind::kNone ||
      !plan.stragglers.slow_workers.empty())
    throw core::InputError(plan.file, 0, "stragglers/failures",
                           "are simulated only; remove them to execute the plan");
}

core::RunResult run_local(const core::Plan& plan, const ExecOptions& options) {
  check_executable(plan);
  auto wall0 = std::chrono::steady_clock::now();
  int servers = plan.strategy.kind == core::StrategyKind::kPs ? plan.strategy.ps_servers : 0;
  int size = plan.training.workers + servers;
  // Where each rank runs: its node's namespace and address on an emulated cluster.
  core::RankPlan ranks = core::plan_ranks(plan);
  if (!options.node_netns.empty() &&
      ranks.topology.num_nodes() > static_cast<int>(options.node_netns.size()))
    throw core::InputError(plan.file, plan.training.workers_line, "training.workers",
                           "the plan needs " + std::to_string(ranks.topology.num_nodes()) +
                               " nodes; the emulated cluster has " +
                               std::to_string(options.node_netns.size()));
  char tmpl[] = "/tmp/scaleout-run-XXXXXX";
  if (!::mkdtemp(tmpl)) throw RunFailed("cannot create a run directory in /tmp");
  fs::path dir(tmpl);
  fs::create_directories(dir / "store");

  auto setup_of = [&](int r) {
    RankSetup s;
    s.rank = r;
    s.size = size;
    s.store_dir = (dir / "store").string();
    if (!options.node_netns.empty()) {
      int node = ranks.node_of_rank(r);
      s.netns = options.node_netns[node];
      s.hostname = options.node_ip[node];
    }
    return s;
  };

  std::fflush(nullptr);
  pid_t launcher = ::getpid();
  std::map<pid_t, int> running;
  for (int r = 0; r < size; ++r) {
    pid_t pid = ::fork();
    if (pid < 0) {
      kill_all(running);
      fs::remove_all(dir);
      throw RunFailed("cannot start rank " + std::to_string(r) + " (fork failed)");
    }
    if (pid == 0) child(plan, options, setup_of(r), dir, launcher);
    running[pid] = r;
  }

  auto deadline = std::chrono::steady_clock::now() + options.run_timeout(plan.training.steps) +
                  std::chrono::seconds(30);
  std::string failure = wait_for_ranks(running, dir, deadline);
  kill_all(running);
  if (!failure.empty()) {
    failure += other_ranks_errors(dir, size, failure);
    fs::remove_all(dir);
    throw RunFailed(failure);
  }
  std::vector<nlohmann::json> reports;
  try {
    reports = read_reports(dir, size);
  } catch (...) {
    fs::remove_all(dir);
    throw;
  }
  fs::remove_all(dir);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  core::RunResult result = aggregate(plan, reports, servers, options, wall);
  result.wall_s = wall;
  return result;
}

std::optional<core::RunResult> run_external(const core::Plan& plan, const ExecOptions& options,
                                            const ExternalRank& me, const std::string& store_dir) {
  check_executable(plan);
  int servers = plan.strategy.kind == core::StrategyKind::kPs ? plan.strategy.ps_servers : 0;
  int size = plan.training.workers + servers;
  if (me.size != size || (me.servers >= 0 && me.servers != servers))
    throw core::InputError(plan.file, plan.training.workers_line, "training.workers",
                           me.source + " describes " + std::to_string(me.size) + " ranks" +
                               (me.servers >= 0 ? " (" + std::to_string(me.servers) + " ps)" : "") +
                               "; the plan has " + std::to_string(plan.training.workers) +
                               " workers and " + std::to_string(servers) + " servers");
  auto wall0 = std::chrono::steady_clock::now();
  fs::path dir(store_dir);
  fs::create_directories(dir / "store");
  RankSetup setup;
  setup.rank = me.rank;
  setup.size = size;
  setup.store_dir = (dir / "store").string();
  if (!me.hostname.empty()) {
    setup.hostname = me.hostname;
  } else {
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    setup.hostname = host;
  }
  try {
    run_rank(plan, options, setup, [&](const nlohmann::json& report) {
      report_and_wait(dir, me.rank, size, options.run_timeout(plan.training.steps), report);
    });
  } catch (const std::exception& e) {
    std::ofstream(dir / ("rank-" + std::to_string(me.rank) + ".err")) << e.what();
    throw RunFailed("rank " + std::to_string(me.rank) + " failed: " + e.what());
  }
  if (me.rank != 0) return std::nullopt;
  std::vector<nlohmann::json> reports = read_reports(dir, size);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  core::RunResult result = aggregate(plan, reports, servers, options, wall);
  result.wall_s = wall;
  return result;
}

}  // namespace scaleout::exec
