// `scaleout export megatron PLAN`: the plan's split and model as Megatron-LM's arguments, one a
// line, ready to paste into a launch script.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/export_megatron.hpp"
#include "core/plan_loader.hpp"

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
  return [plan]() {
    std::fputs(megatron_text(core::load_plan(*plan)).c_str(), stdout);
    return 0;
  };
}

}  // namespace scaleout::cli
