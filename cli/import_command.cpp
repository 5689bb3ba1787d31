// `scaleout import hf CONFIG.json`: a Hugging Face model config as a workload file (its
// transformer's dimensions, with where each came from as comments), written with -o or printed.
// `scaleout import megatron --cluster FILE --workers N -- ARGS...`: a plan from Megatron-LM's
// arguments (core/formats/megatron_import.hpp). `scaleout import deepspeed ds_config.json --cluster
// FILE
// --workload FILE --workers N`: a plan from DeepSpeed's config (core/formats/deepspeed_config.hpp).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/files/atomic_file.hpp"
#include "core/formats/deepspeed_config.hpp"
#include "core/formats/hf_config.hpp"
#include "core/formats/megatron_import.hpp"
#include "core/model/transformer.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"

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
  std::string workload;  // import deepspeed
  int tensor = 1, pipeline = 1;
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

// A path as a plan in `folder` names it (plans resolve paths from their own folder).
std::string path_from(const std::string& path, const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  return fs::absolute(path).lexically_normal().lexically_relative(fs::absolute(folder)).string();
}

std::filesystem::path plan_folder(const ImportArgs& a) {
  namespace fs = std::filesystem;
  return a.output.empty() ? fs::current_path() : fs::absolute(a.output).parent_path();
}

// The plan is loaded from a file beside its destination (the current folder when it is printed)
// before it is kept: what scaleout would refuse is refused here, and nothing is left behind.
int keep_plan(const ImportArgs& a, const std::string& yaml,
              const std::vector<std::string>& left_out, const std::string& source) {
  namespace fs = std::filesystem;
  for (const std::string& flag : left_out)
    std::fprintf(stderr, "not modelled, left out: %s\n", flag.c_str());
  fs::path check = plan_folder(a) / (".scaleout-import-" + std::to_string(::getpid()) + ".yaml");
  core::write_file_atomic(check.string(), yaml);
  try {
    core::load_plan(check.string());
  } catch (const core::InputError& e) {
    fs::remove(check);
    throw core::InputError("the plan from " + source +
                           " is refused (nothing written): " + e.what());
  } catch (...) {
    fs::remove(check);
    throw;
  }
  if (a.output.empty()) {
    fs::remove(check);
    std::fputs(yaml.c_str(), stdout);
    return 0;
  }
  fs::rename(check, a.output);
  std::printf("wrote %s: a plan of %d workers from %s (%zu left out)\n", a.output.c_str(),
              a.workers, source.c_str(), left_out.size());
  return 0;
}

int import_megatron(const ImportArgs& a) {
  core::MegatronImportOptions options{path_from(a.cluster, plan_folder(a)), a.workers, a.vocabulary,
                                      a.name};
  core::MegatronImport plan = core::import_megatron(a.arguments, options);
  return keep_plan(a, plan.yaml, plan.left_out, std::to_string(a.arguments.size()) + " arguments");
}

int import_deepspeed(const ImportArgs& a) {
  core::DeepSpeedImportOptions options{path_from(a.cluster, plan_folder(a)),
                                       path_from(a.workload, plan_folder(a)), a.workers, a.tensor,
                                       a.pipeline};
  core::DeepSpeedImport plan = core::import_deepspeed(a.config, options);
  return keep_plan(a, plan.yaml, plan.left_out, a.config);
}

}  // namespace

Action add_import_command(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd =
      app.add_subcommand("import",
                         "Write a workload file from another tool's description of the model.\n"
                         "Example: scaleout import hf config.json -o models/my-llama.yaml");
  cmd->require_subcommand(1);
  CLI::App* hf = cmd->add_subcommand("hf",
                                     "A Hugging Face config.json (llama, mistral, gemma, gemma2, "
                                     "mixtral, qwen2, qwen2_moe, gpt2, gpt_neox, falcon) as a "
                                     "workload");
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
  CLI::App* deepspeed = cmd->add_subcommand(
      "deepspeed",
      "A plan from DeepSpeed's ds_config.json (batch, ZeRO stage, precision) and the model\n"
      "Example: scaleout import deepspeed ds_config.json --cluster topologies/dgx-h100-ib.yaml "
      "--workload models/llama2-70b.yaml --workers 64");
  deepspeed->add_option("config", args->config, "DeepSpeed's ds_config.json")->required();
  deepspeed->add_option("--cluster", args->cluster, "the topology the plan runs on")
      ->required()
      ->check(CLI::ExistingFile);
  deepspeed->add_option("--workload", args->workload, "the model (a workload YAML file)")
      ->required()
      ->check(CLI::ExistingFile);
  deepspeed->add_option("--workers", args->workers, "the world size (GPUs)")
      ->required()
      ->check(CLI::Range(1, 1 << 24));
  deepspeed->add_option("--tensor", args->tensor, "tensor-parallel degree the script sets (1)")
      ->check(CLI::Range(1, 1 << 24));
  deepspeed
      ->add_option("--pipeline", args->pipeline,
                   "pipeline stages the script sets (PipelineModule's num_stages; 1)")
      ->check(CLI::Range(1, 1 << 24));
  deepspeed->add_option("-o,--output", args->output, "write the plan here (default: print it)");
  return [args, hf, megatron]() {
    if (hf->parsed()) return import_hf(*args);
    return megatron->parsed() ? import_megatron(*args) : import_deepspeed(*args);
  };
}

}  // namespace scaleout::cli
