#include "cli/sweep_shard.hpp"

#include <climits>
#include <cstdlib>
#include <optional>

#include "core/plan/input_error.hpp"

namespace scaleout::cli {

namespace {

// A whole number from `min` to INT_MAX, or nothing.
std::optional<long> whole(const std::string& text, long min) {
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  long v = std::strtol(text.c_str(), nullptr, 10);
  if (v < min || v > INT_MAX) return std::nullopt;
  return v;
}

long slurm_variable(const EnvLookup& env, const char* name, long min, bool required) {
  const char* value = env(name);
  if (!value) {
    if (!required) return 1;
    throw core::InputError("", 0, "--shard",
                           std::string("auto takes the shard from a Slurm job array, but ") + name +
                               " is not set (not inside `sbatch --array`?): run inside a job "
                               "array, or give --shard K/N");
  }
  auto v = whole(value, min);
  if (!v)
    throw core::InputError("", 0, "--shard",
                           std::string("auto: ") + name + "='" + value +
                               "' is not a whole number of at least " + std::to_string(min));
  return *v;
}

std::string quoted(const std::string& text) {  // for the shell, inside single quotes
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

template <typename T, typename F>
std::string joined(const std::vector<T>& items, F name) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + std::string(name(item));
  return out;
}

}  // namespace

sim::Shard parse_shard(const std::string& text, const EnvLookup& env) {
  if (text == "auto") {
    long id = slurm_variable(env, "SLURM_ARRAY_TASK_ID", 0, true);
    long min = slurm_variable(env, "SLURM_ARRAY_TASK_MIN", 0, true);
    long count = slurm_variable(env, "SLURM_ARRAY_TASK_COUNT", 1, true);
    long step = slurm_variable(env, "SLURM_ARRAY_TASK_STEP", 1, false);
    long k = (id - min) / step;
    if (id < min || (id - min) % step != 0 || k >= count)
      throw core::InputError(
          "", 0, "--shard",
          "auto: task " + std::to_string(id) + " is not one of " + std::to_string(count) +
              " tasks from " + std::to_string(min) + " in steps of " + std::to_string(step) +
              " (SLURM_ARRAY_TASK_ID/MIN/STEP/COUNT): give the array as a range, e.g. "
              "--array=0-" +
              std::to_string(count - 1));
    return {static_cast<int>(k), static_cast<int>(count)};
  }
  auto slash = text.find('/');
  if (slash != std::string::npos) {
    auto k = whole(text.substr(0, slash), 0), n = whole(text.substr(slash + 1), 1);
    if (k && n && *k < *n) return {static_cast<int>(*k), static_cast<int>(*n)};
  }
  throw core::InputError("", 0, "--shard",
                         "'" + text +
                             "' is not K/N with 0 <= K < N (e.g. 0/4, 1/4, 2/4, 3/4) nor auto "
                             "(from a Slurm job array)");
}

std::string shard_path(const std::string& output, const std::string& k) {
  std::string stem = output;
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".csv") == 0)
    stem.resize(stem.size() - 4);
  return stem + ".shard-" + k + ".csv";
}

namespace {

// The shell words of shard `$SLURM_ARRAY_TASK_ID`'s path.
std::string task_shard_path(const std::string& output) {
  std::string path = shard_path(output, "@");
  auto at = path.rfind('@');
  return quoted(path.substr(0, at)) + "\"$SLURM_ARRAY_TASK_ID\"" + quoted(path.substr(at + 1));
}

}  // namespace

std::string slurm_script(const SlurmSweep& s) {
  std::string n = std::to_string(s.shards), bin = quoted(s.binary);
  std::string log_path = shard_path(s.output, "%a");
  log_path.replace(log_path.size() - 4, 4, ".log");  // out.shard-%a.log
  std::string shards;
  for (int k = 0; k < s.shards; ++k)
    shards += " " + quoted(shard_path(s.output, std::to_string(k)));
  std::string sweep =
      bin + " sweep " + quoted(s.plan) + " --workers " +
      quoted(joined(s.workers, [](int w) { return std::to_string(w); })) + " --strategies " +
      quoted(joined(s.strategies, [](core::StrategyKind k) { return core::strategy_name(k); })) +
      " --engine " + s.engine + " --fidelity " + s.fidelity + " -j " + std::to_string(s.jobs) +
      " --shard auto --resume --quiet";
  for (const auto& v : s.vary) sweep += " --vary " + quoted(v);
  return "#!/bin/bash\n"
         "# A scaleout sweep in " +
         n +
         " shards as a Slurm job array. Submit: sbatch THIS_FILE\n"
         "# Each task runs one shard of the grid (--shard auto; --resume, so a requeued task goes\n"
         "# on); the first task submits the merge, which runs when every task ended well.\n"
         "#SBATCH --job-name=scaleout-sweep\n"
         "#SBATCH --array=0-" +
         std::to_string(s.shards - 1) +
         "\n"
         "#SBATCH --cpus-per-task=" +
         std::to_string(s.jobs) +
         "\n"
         "#SBATCH --output=" +
         log_path +
         "\n"
         "set -euo pipefail\n"
         "if [ \"$SLURM_ARRAY_TASK_ID\" = \"$SLURM_ARRAY_TASK_MIN\" ] && "
         "[ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then\n"
         "  sbatch --job-name=scaleout-merge --dependency=afterok:\"$SLURM_ARRAY_JOB_ID\" "
         "--kill-on-invalid-dep=yes --output=" +
         quoted(s.output + ".merge.log") +
         " <<'MERGE'\n"
         "#!/bin/bash\n"
         "exec " +
         bin + " merge " + quoted(s.output) + shards +
         "\n"
         "MERGE\n"
         "fi\n"
         "exec " +
         sweep + " -o " + task_shard_path(s.output) + "\n";
}

}  // namespace scaleout::cli
