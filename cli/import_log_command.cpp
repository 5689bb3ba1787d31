// `scaleout import-log megatron|deepspeed LOG --plan PLAN`: a Megatron-LM or DeepSpeed training log
// as a measured result of the plan (core/formats/megatron_log.hpp, core/formats/deepspeed_log.hpp),
// for `compare` and the GUI.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "core/files/atomic_file.hpp"
#include "core/formats/deepspeed_log.hpp"
#include "core/formats/megatron_log.hpp"
#include "core/plan/plan_loader.hpp"

namespace scaleout::cli {

namespace {

struct ImportLogArgs {
  std::string format;  // the subcommand: megatron or deepspeed
  std::string log;
  std::string plan;
  std::string output;
  int warm_up = 1;
};

int import_log(const ImportLogArgs& a) {
  core::Plan plan = core::load_plan(a.plan);
  nlohmann::json j = a.format == "deepspeed" ? core::deepspeed_log_result(a.log, plan, a.warm_up)
                                             : core::megatron_log_result(a.log, plan, a.warm_up);
  std::string text = j.dump(2) + "\n";
  if (a.output.empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  core::write_file_atomic(a.output, text);
  const nlohmann::json& log = j["log"];
  std::printf(
      "wrote %s: %d iterations in %d log lines after %d dropped as warm-up, %.3f s an iteration, "
      "%.1f sequences/s%s\n",
      a.output.c_str(), log["iterations_kept"].get<int>(), log["lines_kept"].get<int>(), a.warm_up,
      j["step_time_s"].get<double>(), j["throughput_samples_per_s"].get<double>(),
      log["skipped_iterations"].get<int>() > 0 ? " (some iterations skipped: see log)" : "");
  return 0;
}

}  // namespace

Action add_import_log_command(CLI::App& app) {
  auto args = std::make_shared<ImportLogArgs>();
  CLI::App* cmd = app.add_subcommand(
      "import-log",
      "Write a framework's training log as a measured result of a plan, for compare.\n"
      "Example: scaleout import-log megatron train.log --plan plan.yaml -o measured.json");
  cmd->require_subcommand(1);
  auto add_format = [&](const char* name, const char* what) {
    CLI::App* format = cmd->add_subcommand(name, what);
    format->add_option("log", args->log, "the training log")->required();
    format->add_option("--plan", args->plan, "the plan the run followed")
        ->required()
        ->check(CLI::ExistingFile);
    format
        ->add_option("--warm-up", args->warm_up,
                     "log lines dropped first (compilation, allocator, data loader)")
        ->check(CLI::Range(0, 1 << 20));
    format->add_option("-o,--output", args->output, "write the result JSON here (default: print)");
    format->callback([args, name] { args->format = name; });
  };
  add_format("megatron",
             "Megatron-LM's iteration lines (elapsed time per iteration, global batch size)");
  add_format("deepspeed",
             "DeepSpeed's throughput lines (global_step, CurrSamplesPerSec; the plan's global "
             "batch)");
  return [args]() { return import_log(*args); };
}

}  // namespace scaleout::cli
