// `scaleout export megatron PLAN`: the plan's split and model as Megatron-LM's arguments, one a
// line, ready to paste into a launch script. `scaleout export deepspeed PLAN`: its batch, ZeRO
// stage and precision as DeepSpeed's ds_config.json (the pipeline and tensor degrees, which the
// training script sets, said on stderr).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/export_megatron.hpp"
#include "core/formats/deepspeed_config.hpp"
#include "core/parallel/model_split.hpp"
#include "core/plan/plan_loader.hpp"

namespace scaleout::cli {

Action add_export_command(CLI::App& app) {
  auto plan = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write a plan as another tool's settings.\n"
      "Example: scaleout export megatron experiments/model-parallel/gpt3-175b.yaml");
  cmd->require_subcommand(1);
  CLI::App* megatron = cmd->add_subcommand(
      "megatron", "The plan's split and model as Megatron-LM's arguments (pretrain_gpt.py)");
  megatron->add_option("plan", *plan, "plan YAML file")->required();
  CLI::App* deepspeed = cmd->add_subcommand(
      "deepspeed", "The plan's batch, ZeRO stage and precision as DeepSpeed's ds_config.json");
  deepspeed->add_option("plan", *plan, "plan YAML file")->required();
  return [plan, megatron]() {
    core::Plan p = core::load_plan(*plan);
    if (megatron->parsed()) {
      std::fputs(megatron_text(p).c_str(), stdout);
      return 0;
    }
    std::string config = core::deepspeed_config(p);
    core::ModelSplit s = core::model_split(p);
    std::fprintf(stderr,
                 "DeepSpeed (ds_config.json) for %s: the training script sets tensor %d and "
                 "pipeline %d (PipelineModule(num_stages=%d)) for %d GPUs\n",
                 p.file.c_str(), s.tensor, s.pipeline, s.pipeline, p.training.workers);
    std::fputs(config.c_str(), stdout);
    return 0;
  };
}

}  // namespace scaleout::cli
