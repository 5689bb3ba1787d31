#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.hpp"
#include "cli/plan_args.hpp"
#include "cli/report.hpp"
#include "cli/sim_progress_line.hpp"
#include "cli/sweep_shard.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_variation.hpp"
#include "explore/sweep.hpp"
#include "explore/sweep_csv.hpp"

namespace scaleout::cli {

namespace {

struct SweepArgs {
  std::string plan;
  std::string workers;
  std::string strategies;
  std::string engine = "sim";
  std::string fidelity = "fast";
  std::string output;
  int jobs = 2;
  bool resume = false;
  bool quiet = false;
  std::string shard;   // K/N or auto
  int emit_slurm = 0;  // shards of the printed sbatch script; 0: run the sweep
  double max_events = sim::kDefaultMaxEvents;
  int baseline_workers = 0;       // 0: none
  std::vector<std::string> vary;  // "field=v1,v2,..." each
};

// Rows done, rate and time left on one terminal line, and the messages the points being simulated
// have sent against their estimates (a row of tens of thousands of ranks takes minutes).
void show_progress(sim::SweepOptions& options) {
  struct Line {
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    std::size_t done = 0, total = 0;
    sim::ProgressReport running;
    void print() const {
      double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      double rate = elapsed > 0 ? done / elapsed : 0;
      double left = rate > 0 ? (total - done) / rate : 0;
      std::string rows = "first rows";  // no row finished yet: the total is not known here
      if (total > 0) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%zu/%zu rows, %.1f rows/s, %.0f s left", done, total, rate,
                      left);
        rows = buf;
      }
      std::string now = running.estimated_messages > 0 && (total == 0 || done < total)
                            ? "; running: " + grouped(running.messages) + " of about " +
                                  grouped(static_cast<std::uint64_t>(running.estimated_messages)) +
                                  " messages"
                            : "";
      std::fprintf(stderr, "\r  %s%s\033[K", rows.c_str(), now.c_str());
      if (total > 0 && done == total) std::fprintf(stderr, "\n");
      std::fflush(stderr);
    }
  };
  auto line = std::make_shared<Line>();
  options.on_progress = [line](std::size_t done, std::size_t total) {
    line->done = done;
    line->total = total;
    line->running = {};
    line->print();
  };
  options.on_running = [line](const sim::ProgressReport& running) {
    line->running = running;
    line->print();
  };
}

// Keeps the first of equal values, in order: "16,8,16" runs 16 then 8, one row each.
template <typename T>
std::vector<T> first_of_each(const std::vector<T>& values) {
  std::vector<T> out;
  for (const T& v : values)
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

std::vector<core::StrategyKind> parse_strategies(const std::string& text) {
  std::vector<core::StrategyKind> kinds;
  std::stringstream in(text);
  std::string name;
  while (std::getline(in, name, ',')) {
    auto kind = core::parse_strategy_kind(name);
    if (!kind) throw core::InputError("", 0, "--strategies", "unknown strategy '" + name + "'");
    kinds.push_back(*kind);
  }
  if (kinds.empty()) throw core::InputError("", 0, "--strategies", "no strategy given");
  return first_of_each(kinds);
}

// "field=v1,v2,...": the field resolved in `plan` (core::resolve_field), the values in order.
sim::Variation parse_variation(const core::Plan& plan, const std::string& text) {
  std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw core::InputError("", 0, "--vary",
                           "'" + text + "' is not FIELD=V1,V2,... (e.g. parallelism.tensor=1,2,4)");
  sim::Variation v;
  v.values = first_of_each(sim::split_fields(text.substr(eq + 1), ','));
  for (const auto& value : v.values)
    if (value.empty()) throw core::InputError("", 0, "--vary", "'" + text + "' has an empty value");
  v.field = core::resolve_field(plan, text.substr(0, eq), v.values.front(), "--vary");
  return v;
}

sim::SweepOptions sweep_options(const SweepArgs& args, const core::Plan& plan,
                                const core::PlanOverrides& named) {
  sim::SweepOptions options;
  options.workers = args.workers.empty()
                        ? std::vector<int>{plan.training.workers}
                        : first_of_each(sim::parse_worker_list(args.workers, "--workers"));
  options.strategies = named.strategies.empty()
                           ? std::vector<core::StrategyKind>{plan.strategy.kind}
                           : named.strategies;
  options.engine = sim::parse_engine(args.engine, "--engine");
  options.fidelity = sim::parse_fidelity(args.fidelity, "--fidelity");
  options.max_events = args.max_events;
  options.baseline_workers = args.baseline_workers;
  options.jobs = args.jobs;
  options.resume = args.resume;
  options.csv_path = args.output;
  if (!args.shard.empty()) options.shard = parse_shard(args.shard, std::getenv);
  for (const auto& text : args.vary) options.vary.push_back(parse_variation(plan, text));
  return options;
}

SlurmSweep slurm_sweep(const SweepArgs& args, const sim::SweepOptions& options) {
  namespace fs = std::filesystem;
  SlurmSweep s;
  s.binary = fs::canonical("/proc/self/exe").string();
  s.plan = fs::absolute(args.plan).lexically_normal().string();
  s.output = fs::absolute(args.output).lexically_normal().string();
  s.workers = options.workers;
  s.strategies = options.strategies;
  s.engine = args.engine;
  s.fidelity = args.fidelity;
  s.jobs = args.jobs;
  s.shards = args.emit_slurm;
  s.vary = args.vary;
  return s;
}

int run_sweep_command(const SweepArgs& args, const core::Plan& plan, sim::SweepOptions& options) {
  if (!args.quiet && ::isatty(STDERR_FILENO)) show_progress(options);
  sim::SweepSummary summary = sim::run_sweep(plan, options);
  for (const auto& e : summary.errors) std::fprintf(stderr, "skipped %s\n", e.c_str());
  print_warnings(stderr, summary.rows);
  if (!args.quiet) {
    std::vector<std::string> varied;
    for (const auto& v : options.vary) varied.push_back(v.field);
    print_sweep_table(stdout, summary.rows, varied, summary.row_values);
    std::printf("%zu rows written to %s", summary.rows.size(), args.output.c_str());
    if (options.shard) std::printf(" (shard %d/%d)", options.shard->index, options.shard->count);
    if (summary.skipped) std::printf(" (%d already there)", summary.skipped);
    std::printf("\n");
  }
  return summary.errors.empty() ? 0 : 1;
}

}  // namespace

Action add_sweep_command(CLI::App& app) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Predict a scaling curve: one row per (strategy, workers).\n"
      "Example: scaleout sweep experiments/quickstart.yaml --workers 8:1024:x2 "
      "--strategies ring,torus2d,ps -o sweep.csv\n"
      "On a cluster: scaleout sweep ... -o sweep.csv --emit-slurm 16 > sweep.sbatch; "
      "sbatch sweep.sbatch");
  cmd->add_option("plan", args->plan, "plan YAML file")->required()->transform(bundled_input());
  cmd->add_option(
      "--workers", args->workers,
      "8:1024:x2, 8:64:+8 or 8,16,100 (default: the plan's); a repeated count runs once");
  cmd->add_option(
      "--strategies", args->strategies,
      "comma-separated strategy kinds (default: the plan's); a repeated kind runs once");
  cmd->add_option("--engine", args->engine, "sim or analytic")
      ->check(CLI::IsMember({"sim", "analytic"}));
  cmd->add_option("--fidelity", args->fidelity, "sim: fast or step")
      ->check(CLI::IsMember({"fast", "step"}));
  cmd->add_option("-o,--output", args->output, "CSV file, written row by row")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("-j,--jobs", args->jobs, "simulations run side by side")->check(positive_int());
  cmd->add_flag("--resume", args->resume,
                "keep the rows already in the CSV and run only the missing ones");
  cmd->add_flag("-q,--quiet", args->quiet, "no progress and no table");
  auto* shard = cmd->add_option("--shard", args->shard,
                                "run part K/N of the grid (points whose index is K mod N), or "
                                "auto (K and N from a Slurm job array); then `scaleout merge`");
  cmd->add_option("--emit-slurm", args->emit_slurm,
                  "print an sbatch job-array script running N shards and the merge into -o, "
                  "and run nothing")
      ->check(CLI::Range(1, 100000))
      ->excludes(shard);
  cmd->add_option("--max-events", args->max_events,
                  "sim: refuse a point estimated to send more messages than this")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--baseline-workers", args->baseline_workers,
                  "also report efficiency against this swept worker count: (throughput/N) / "
                  "(throughput at B / B), e.g. 8 as Goyal et al. report 8 -> 256")
      ->check(positive_int());
  cmd->add_option("--vary", args->vary,
                  "FIELD=V1,V2,...: also sweep a plan field by its dotted name (repeatable; the "
                  "cross product), e.g. parallelism.tensor=1,2,4 or nic.bandwidth=10Gbps,100Gbps")
      ->allow_extra_args(false);

  return [args]() {
    core::PlanOverrides named;  // replaces nothing: only says which kinds will run
    if (!args->strategies.empty()) named.strategies = parse_strategies(args->strategies);
    core::Plan plan = core::load_plan(args->plan, named);
    print_plan_warnings(plan);
    sim::SweepOptions options = sweep_options(*args, plan, named);
    if (args->emit_slurm) {
      std::fputs(slurm_script(slurm_sweep(*args, options)).c_str(), stdout);
      return 0;
    }
    return run_sweep_command(*args, plan, options);
  };
}

}  // namespace scaleout::cli
