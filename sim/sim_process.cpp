// Each simulation runs in a child process: SimGrid keeps one engine per process, and a crash in
// one simulation then cannot take the caller down.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/input_error.hpp"
#include "sim/simulator.hpp"

namespace scaleout::sim {

using core::Plan;
using core::RunResult;

SimChild start_simulation(const Plan& plan, const SimOptions& options) {
  char name[] = "/tmp/scaleout-sim-XXXXXX";
  int fd = ::mkstemp(name);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the simulation");
  ::close(fd);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot start a simulation process (fork failed)");
  if (pid == 0) {
    nlohmann::json out;
    try {
      out["result"] = core::to_json(simulate_here(plan, options));
    } catch (const core::InputError& e) {
      out["input_error"] = e.what();
    } catch (const std::exception& e) {
      out["error"] = e.what();
    }
    std::ofstream(name) << out.dump();
    std::_Exit(0);
  }
  return SimChild{pid, name};
}

RunResult finish_simulation(const SimChild& child) {
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  return collect_simulation(child, status);
}

RunResult collect_simulation(const SimChild& child, int status) {
  std::ifstream in(child.result_file);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(child.result_file);
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
  return finish_simulation(start_simulation(plan, options));
}

}  // namespace scaleout::sim
