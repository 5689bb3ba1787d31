#include "exec/local_run.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "core/files/atomic_file.hpp"
#include "core/files/temp_files.hpp"
#include "core/formats/trace.hpp"
#include "core/parallel/model_split.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/topology.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "exec/measured.hpp"
#include "exec/rank_main.hpp"
#include "exec/stuck_rank.hpp"

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
  for (const auto& [pid, rank] : running) {
    ::waitpid(pid, nullptr, 0);
    core::untrack_child(pid);
  }
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

// A rank killed by SIGPIPE wrote to a peer that had already gone: an echo of another failure.
bool is_echo(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE; }

// How long an echo waits for the failure it echoes to be reaped.
constexpr auto kEchoGrace = std::chrono::seconds(1);

// Waits for every rank (only this run's processes: a caller's other children are left alone);
// returns the first failure, or "" when all succeeded. A failure that only echoes another (a
// broken pipe) is reported when no cause shows up within kEchoGrace. Every transfer has its own
// deadline, so a rank that waits on a dead peer fails by itself; the overall deadline is a guard.
std::string wait_for_ranks(std::map<pid_t, int>& running, const fs::path& dir,
                           std::chrono::steady_clock::time_point deadline) {
  std::string echo;
  std::chrono::steady_clock::time_point echo_until;
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
      if (pid > 0) core::untrack_child(pid);
      it = running.erase(it);
      reaped = true;
      if (pid <= 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) continue;
      if (!is_echo(status)) return rank_failure(dir, rank, status);
      if (echo.empty()) {
        echo = rank_failure(dir, rank, status);
        echo_until = std::chrono::steady_clock::now() + kEchoGrace;
      }
    }
    if (reaped) continue;
    auto now = std::chrono::steady_clock::now();
    if (!echo.empty() && now > echo_until) return echo;
    if (now > deadline)
      return "the run passed its deadline; ranks still running: " + std::to_string(running.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return echo;
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

namespace {

// Rank r of a local run: its store, and on an emulated cluster its node's namespace and addresses.
RankSetup local_rank_setup(const core::RankPlan& ranks, const ExecOptions& options, int r, int size,
                           const fs::path& store) {
  RankSetup s;
  s.rank = r;
  s.size = size;
  s.store_dir = store.string();
  if (options.node_netns.empty()) return s;
  int node = ranks.node_of_rank(r);
  s.netns = options.node_netns[node];
  s.hostname = options.node_ip[node];
  // The plan's rails, on the cluster's addresses (a plan with fewer rails uses the first).
  if (node < static_cast<int>(options.node_rail_ip.size())) {
    const auto& more = options.node_rail_ip[node];
    std::size_t rails = std::min<std::size_t>(ranks.topology.rails() - 1, more.size());
    s.rail_hostnames.assign(more.begin(), more.begin() + rails);
  }
  if (!s.rail_hostnames.empty())
    for (int q = 0; q < size; ++q) s.rank_node.push_back(ranks.node_of_rank(q));
  return s;
}

}  // namespace

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
  fs::path dir;
  try {
    dir = core::make_temp_dir("scaleout-run");
  } catch (const std::runtime_error& e) {
    throw RunFailed(e.what());
  }
  fs::create_directories(dir / "store");

  auto setup_of = [&](int r) { return local_rank_setup(ranks, options, r, size, dir / "store"); };

  std::fflush(nullptr);
  pid_t launcher = ::getpid();
  std::map<pid_t, int> running;
  for (int r = 0; r < size; ++r) {
    pid_t pid = ::fork();
    if (pid < 0) {
      kill_all(running);
      core::remove_temp(dir);
      throw RunFailed("cannot start rank " + std::to_string(r) + " (fork failed)");
    }
    if (pid == 0) child(plan, options, setup_of(r), dir, launcher);
    running[pid] = r;
    core::track_child(pid);
  }

  auto deadline = std::chrono::steady_clock::now() + options.run_timeout(plan.training.steps) +
                  std::chrono::seconds(30);
  std::string failure = wait_for_ranks(running, dir, deadline);
  if (!failure.empty()) {
    // Named before the ranks are killed, while a stopped one can still be seen stopped.
    std::vector<std::string> errors(size);
    for (int r = 0; r < size; ++r)
      if (fs::path err = dir / ("rank-" + std::to_string(r) + ".err"); fs::exists(err))
        errors[r] = read_file(err);
    std::string stuck = stuck_rank(running, errors, options.timeout);
    if (!stuck.empty()) failure = stuck + "; " + failure;
  }
  kill_all(running);
  if (!failure.empty()) {
    failure += other_ranks_errors(dir, size, failure);
    core::remove_temp(dir);
    throw RunFailed(failure);
  }
  std::vector<nlohmann::json> reports;
  try {
    reports = read_reports(dir, size);
  } catch (...) {
    core::remove_temp(dir);
    throw;
  }
  core::remove_temp(dir);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  core::RunResult result = aggregate(plan, reports, servers, options, wall);
  result.wall_s = wall;
  return result;
}

namespace {

// After this rank failed in an externally launched job, where no process of another rank can be
// looked at: waits (at most `timeout`) until at most one rank has left neither an error nor a
// report, then names the quiet rank that the others' errors say they waited on.
std::string stuck_external_rank(const fs::path& dir, int size, std::chrono::milliseconds timeout) {
  auto until = std::chrono::steady_clock::now() + timeout;
  std::vector<std::string> errors(size);
  std::vector<int> quiet;
  for (;;) {
    quiet.clear();
    for (int r = 0; r < size; ++r) {
      fs::path err = dir / ("rank-" + std::to_string(r) + ".err");
      if (fs::exists(err))
        errors[r] = read_file(err);
      else if (!fs::exists(dir / ("rank-" + std::to_string(r) + ".json")))
        quiet.push_back(r);
    }
    if (quiet.size() <= 1 || std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return most_waited_on(quiet, errors, timeout);
}

}  // namespace

std::optional<core::RunResult> run_external(const core::Plan& plan, const ExecOptions& options,
                                            const ExternalRank& me, const std::string& store_dir) {
  check_executable(plan);
  core::refuse_model_parallel(plan, "an externally launched run");
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
    std::string stuck = stuck_external_rank(dir, size, options.timeout);
    throw RunFailed((stuck.empty() ? "" : stuck + "; ") + "rank " + std::to_string(me.rank) +
                    " failed: " + e.what());
  }
  if (me.rank != 0) return std::nullopt;
  std::vector<nlohmann::json> reports = read_reports(dir, size);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  core::RunResult result = aggregate(plan, reports, servers, options, wall);
  result.wall_s = wall;
  return result;
}

}  // namespace scaleout::exec
