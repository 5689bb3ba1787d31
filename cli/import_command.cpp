// `scaleout import hf CONFIG.json`: a Hugging Face model config as a workload file (its
// transformer's dimensions, with where each came from as comments), written with -o or printed.
// `scaleout import megatron --cluster FILE --workers N -- ARGS...`: a plan from Megatron-LM's
// arguments (core/megatron_import.hpp).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "core/hf_config.hpp"
#include "core/megatron_import.hpp"
#include "core/plan_loader.hpp"
#include "core/transformer.hpp"

namespace scaleout::cli {

namespace {

struct ImportArgs {
  std::string config;
  std::string output;
  int sequence = 0;
  std::string cluster;
  int workers = 0;
  int vocabulary = 0;
  std::string name;
  std::vector<std::string> arguments;
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

// The cluster's path as a plan in `folder` names it (plans resolve paths from their own folder).
std::string cluster_from(const std::string& cluster, const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  return fs::absolute(cluster).lexically_normal().lexically_relative(fs::absolute(folder)).string();
}

// The plan is loaded from a file beside its destination (the current folder when it is printed)
// before it is kept: what scaleout would refuse is refused here, and nothing is left behind.
int import_megatron(const ImportArgs& a) {
  namespace fs = std::filesystem;
  fs::path folder = a.output.empty() ? fs::current_path() : fs::absolute(a.output).parent_path();
  core::MegatronImportOptions options{cluster_from(a.cluster, folder), a.workers, a.vocabulary,
                                      a.name};
  core::MegatronImport plan = core::import_megatron(a.arguments, options);
  for (const std::string& flag : plan.left_out)
    std::fprintf(stderr, "not modelled, left out: %s\n", flag.c_str());
  fs::path check = folder / (".scaleout-import-" + std::to_string(::getpid()) + ".yaml");
  core::write_file_atomic(check.string(), plan.yaml);
  try {
    core::load_plan(check.string());
  } catch (...) {
    fs::remove(check);
    throw;
  }
  if (a.output.empty()) {
    fs::remove(check);
    std::fputs(plan.yaml.c_str(), stdout);
    return 0;
  }
  fs::rename(check, a.output);
  std::printf("wrote %s: a plan of %d workers from %zu arguments (%zu left out)\n",
              a.output.c_str(), a.workers, a.arguments.size(), plan.left_out.size());
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
  CLI::App* megatron = cmd->add_subcommand(
      "megatron",
      "A plan from Megatron-LM's arguments (pretrain_gpt.py's flags after --)\n"
      "Example: scaleout import megatron --cluster topologies/dgx-h100-ib.yaml --workers 512 -- "
      "--num-layers 80 ...");
  megatron->add_option("--cluster", args->cluster, "the topology the plan runs on")
      ->required()
      ->check(CLI::ExistingFile);
  megatron->add_option("--workers", args->workers, "the world size (GPUs)")
      ->required()
      ->check(CLI::Range(1, 1 << 24));
  megatron
      ->add_option("--vocabulary", args->vocabulary,
                   "the tokenizer's vocabulary, when the arguments give no --vocab-size")
      ->check(CLI::Range(1, 1 << 30));
  megatron->add_option("--name", args->name, "the workload's name (default megatron-LxH)");
  megatron->add_option("-o,--output", args->output, "write the plan here (default: print it)");
  megatron->add_option("arguments", args->arguments, "Megatron-LM's arguments, after --")
      ->required();
  return [args, hf]() { return hf->parsed() ? import_hf(*args) : import_megatron(*args); };
}

}  // namespace scaleout::cli
