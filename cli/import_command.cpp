// `scaleout import hf CONFIG.json`: a Hugging Face model config as a workload file (its
// transformer's dimensions, with where each came from as comments), written with -o or printed.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "core/hf_config.hpp"
#include "core/transformer.hpp"

namespace scaleout::cli {

namespace {

struct ImportArgs {
  std::string config;
  std::string output;
  int sequence = 0;
};

int import_hf(const ImportArgs& a) {
  core::HfModel model = core::read_hf_config(a.config, a.sequence);
  std::string yaml = core::hf_workload_yaml(model, a.config);
  if (a.output.empty()) {
    std::fputs(yaml.c_str(), stdout);
    return 0;
  }
  core::write_file_atomic(a.output, yaml);
  std::printf("wrote %s: %s, %.4gB parameters", a.output.c_str(), model.name.c_str(),
              core::transformer_parameters(model.shape) / 1e9);
  if (model.shape.moe)
    std::printf(", %.4gB active a token", core::active_parameters(model.shape) / 1e9);
  std::printf("\n");
  return 0;
}

}  // namespace

Action add_import_command(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd =
      app.add_subcommand("import",
                         "Write a workload file from another tool's description of the model.\n"
                         "Example: scaleout import hf config.json -o models/my-llama.yaml");
  cmd->require_subcommand(1);
  CLI::App* hf = cmd->add_subcommand(
      "hf",
      "A Hugging Face config.json (llama, mistral, mixtral, qwen2, qwen2_moe, gpt2, gpt_neox, "
      "falcon) as a workload");
  hf->add_option("config", args->config, "the model's config.json")->required();
  hf->add_option("-o,--output", args->output, "write the workload YAML here (default: print it)");
  hf->add_option("--sequence", args->sequence,
                 "tokens a sequence in training (default: the config's max_position_embeddings)")
      ->check(CLI::Range(1, 1 << 24));
  return [args]() { return import_hf(*args); };
}

}  // namespace scaleout::cli
