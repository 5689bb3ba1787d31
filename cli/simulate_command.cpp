#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "analytic/analytic.hpp"
#include "analytic/chakra_trace.hpp"
#include "analytic/pipeline_trace.hpp"
#include "cli/commands.hpp"
#include "cli/plan_args.hpp"
#include "cli/report.hpp"
#include "cli/sim_progress_line.hpp"
#include "core/files/atomic_file.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "sim/simulator.hpp"

namespace scaleout::cli {

namespace {

struct SimulateArgs {
  PlanArgs plan;
  std::string engine = "sim";
  std::string fidelity = "fast";
  std::string output;
  std::string trace;
  std::string chakra;  // a folder for the step as Chakra execution traces
  bool json = false;
  double max_events = sim::kDefaultMaxEvents;
  std::vector<std::string> simgrid_config;  // --simgrid-cfg NAME:VALUE, in order
  int baseline_workers = 0;                 // 0: none
  std::string progress = "auto";
  int samples = 0;  // 0: the plan's reliability.samples
};

}  // namespace

namespace {

void add_simulate_options(CLI::App* cmd, SimulateArgs& a) {
  SimulateArgs* args = &a;
  add_plan_options(cmd, args->plan);
  cmd->add_option("--engine", args->engine, "sim (SimGrid) or analytic (closed form)")
      ->check(CLI::IsMember({"sim", "analytic"}));
  cmd->add_option(
         "--fidelity", args->fidelity,
         "sim: fast (fixed-peer steps travel as one message) or step (every step simulated)")
      ->check(CLI::IsMember({"fast", "step"}));
  cmd->add_option("-o,--output", args->output, "write the result JSON here")
      ->check(non_empty_path());
  cmd->add_option("--trace", args->trace,
                  "write a Chrome trace here (sim engine; analytic: a model-parallel plan's "
                  "pipeline schedule)")
      ->check(non_empty_path());
  cmd->add_option("--chakra", args->chakra,
                  "also write the step as Chakra execution traces (one file per rank, "
                  "DIR/scaleout.<rank>.et, and DIR/comm_group.json), which ASTRA-sim replays")
      ->check(non_empty_path());
  cmd->add_flag("--json", args->json, "print the result JSON on stdout");
  cmd->add_option("--max-events", args->max_events,
                  "sim: refuse a simulation estimated to send more messages than this")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--simgrid-cfg", args->simgrid_config,
                  "sim: set one of SimGrid's own options, NAME:VALUE (repeatable), after the "
                  "plan's (for example contexts/stack-size:8)");
  cmd->add_option("--baseline-workers", args->baseline_workers,
                  "also report efficiency against this many workers (simulated too): "
                  "(throughput/N) / (throughput at B / B)")
      ->check(positive_int());
  cmd->add_option("--progress", args->progress,
                  "sim: messages sent so far on stderr: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--samples", args->samples,
                  "plans with reliability: sampled runs behind the goodput and time-to-train "
                  "percentiles (default: reliability.samples, else 100)")
      ->check(CLI::Range(1, 100000));
}

}  // namespace

Action add_simulate_command(CLI::App& app) {
  auto args = std::make_shared<SimulateArgs>();
  CLI::App* cmd = app.add_subcommand("simulate",
                                     "Predict one training configuration.\n"
                                     "Example: scaleout simulate experiments/quickstart.yaml "
                                     "--workers 64 --strategy ring -o result.json");
  add_simulate_options(cmd, *args);
  return [args]() {
    core::Plan plan = load_plan_args(args->plan);
    if (args->samples > 0) {
      if (!plan.reliability)
        throw core::InputError(plan.file, 0, "--samples",
                               "the plan has no failure rates to sample: add reliability:");
      plan.reliability->samples = args->samples;
    }
    bool analytic_trace = args->engine == "analytic" && !args->trace.empty();
    if (analytic_trace && !plan.parallelism)
      throw core::InputError("", 0, "--trace",
                             "the analytic engine's timeline is a model-parallel plan's pipeline "
                             "schedule; this plan has none: use --engine sim");
    auto predict = [&](const core::Plan& p, const std::string& trace) {
      if (args->engine == "analytic") return sim::predict_analytic(p);
      sim::SimOptions options;
      options.fidelity = sim::parse_fidelity(args->fidelity, "--fidelity");
      options.trace_path = trace;
      options.max_events = args->max_events;
      options.simgrid_config = args->simgrid_config;
      // A lower vm.max_map_count to plan actor stacks for (tests of the heap's stacks).
      if (const char* maps = std::getenv("SCALEOUT_MAX_MAP_COUNT"))
        options.shortcuts.max_map_count = std::atoll(maps);
      if (sim::OnProgress show = progress_printer(args->progress))
        return sim::simulate(p, options, show);
      return sim::simulate(p, options);
    };
    if (!args->chakra.empty()) sim::check_chakra(plan);  // refused before the simulation runs
    core::RunResult result = predict(plan, args->trace);
    if (!args->chakra.empty()) {
      int ranks = sim::write_chakra(plan, args->chakra);
      std::fprintf(stderr, "wrote %d Chakra traces and comm_group.json to %s\n", ranks,
                   args->chakra.c_str());
    }
    if (analytic_trace)
      sim::pipeline_trace(plan).write(args->trace, sim::pipeline_trace_name(plan));
    if (args->baseline_workers > 0) {
      core::PlanOverrides overrides;
      overrides.workers = args->baseline_workers;
      if (!args->plan.strategy.empty())
        overrides.strategy = core::parse_strategy_kind(args->plan.strategy);
      core::set_baseline(result, predict(core::load_plan(args->plan.plan, overrides), ""));
    }
    emit_result(result, plan, args->output, args->json);
    return 0;
  };
}

}  // namespace scaleout::cli
