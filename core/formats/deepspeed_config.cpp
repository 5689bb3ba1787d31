#include "core/formats/deepspeed_config.hpp"

#include <set>
#include <sstream>

#include "core/formats/json_file.hpp"
#include "core/parallel/model_split.hpp"
#include "core/plan/framework.hpp"
#include "core/plan/input_error.hpp"

namespace scaleout::core {

namespace {

using json = nlohmann::json;

struct DeepSpeedReader {
  const std::string& path;
  const json& config;
  DeepSpeedImport& out;

  // A whole number from 1 at `key` of `object` (`field` names it), or 0 when absent.
  long whole(const json& object, const char* key, const std::string& field) const {
    if (!object.contains(key)) return 0;
    const json& v = object[key];
    if (v.is_string() && v.get<std::string>() == "auto")
      throw InputError(path, 0, field,
                       "'auto' is filled in by the Hugging Face Trainer: give a number");
    if (!v.is_number_integer() || v.get<long>() < 1)
      throw InputError(path, 0, field, "expected a whole number from 1");
    return v.get<long>();
  }

  // `key`'s { "enabled": true } (false when absent).
  bool enabled(const char* key) const {
    if (!config.contains(key)) return false;
    const json& section = config[key];
    if (!section.is_object() || !section.contains("enabled")) return false;
    if (!section["enabled"].is_boolean())
      throw InputError(path, 0, std::string(key) + ".enabled",
                       "expected true or false ('auto' is the Hugging Face Trainer's)");
    return section["enabled"].get<bool>();
  }
};

// The ZeRO stage; offloading (not modelled) is refused; its other settings are listed as left out.
int zero_stage(DeepSpeedReader& r) {
  if (!r.config.contains("zero_optimization")) {
    r.out.derivation.push_back("zero 0: DeepSpeed's default (no zero_optimization)");
    return 0;
  }
  const json& z = r.config["zero_optimization"];
  if (!z.is_object()) throw InputError(r.path, 0, "zero_optimization", "expected an object");
  for (const char* offload : {"offload_optimizer", "offload_param"})
    if (z.contains(offload) && z[offload].is_object() &&
        z[offload].value("device", std::string("none")) != "none")
      throw InputError(r.path, 0, std::string("zero_optimization.") + offload + ".device",
                       "offloading to the host or NVMe is not modelled: plan it without");
  for (const auto& [key, value] : z.items())
    if (key != "stage" && key != "offload_optimizer" && key != "offload_param")
      r.out.left_out.push_back("zero_optimization." + key);
  int stage = 0;
  if (z.contains("stage")) {
    if (!z["stage"].is_number_integer() || z["stage"].get<int>() < 0 || z["stage"].get<int>() > 3)
      throw InputError(r.path, 0, "zero_optimization.stage", "expected 0, 1, 2 or 3");
    stage = z["stage"].get<int>();
  }
  r.out.derivation.push_back("zero " + std::to_string(stage) + ": zero_optimization.stage");
  return stage;
}

struct Batch {
  long micro = 0, accumulation = 0, total = 0;
};

// train_batch_size = train_micro_batch_size_per_gpu x gradient_accumulation_steps x data, any two
// giving the third as DeepSpeed derives it (one alone: the other factor 1).
Batch batch_of(DeepSpeedReader& r, long data) {
  Batch b{r.whole(r.config, "train_micro_batch_size_per_gpu", "train_micro_batch_size_per_gpu"),
          r.whole(r.config, "gradient_accumulation_steps", "gradient_accumulation_steps"),
          r.whole(r.config, "train_batch_size", "train_batch_size")};
  if (b.total == 0 && b.micro == 0)
    throw InputError(r.path, 0, "train_batch_size",
                     "missing: give train_batch_size or train_micro_batch_size_per_gpu");
  auto divides = [&](long part, const char* what) {
    if (part <= 0 || b.total % part != 0)
      throw InputError(r.path, 0, "train_batch_size",
                       std::to_string(b.total) + " does not divide into " + what);
    return b.total / part;
  };
  if (b.total == 0) {
    if (b.accumulation == 0) b.accumulation = 1;
    b.total = b.micro * b.accumulation * data;
  } else if (b.micro == 0) {
    if (b.accumulation == 0) b.accumulation = 1;
    b.micro = divides(b.accumulation * data, "gradient_accumulation_steps x data-parallel ranks");
  } else if (b.accumulation == 0) {
    b.accumulation =
        divides(b.micro * data, "train_micro_batch_size_per_gpu x data-parallel ranks");
  } else if (b.total != b.micro * b.accumulation * data) {
    throw InputError(r.path, 0, "train_batch_size",
                     std::to_string(b.total) + " is not train_micro_batch_size_per_gpu " +
                         std::to_string(b.micro) + " x gradient_accumulation_steps " +
                         std::to_string(b.accumulation) + " x " + std::to_string(data) +
                         " data-parallel ranks");
  }
  r.out.derivation.push_back("microbatch " + std::to_string(b.micro) + ", global_batch " +
                             std::to_string(b.total) + " (" + std::to_string(b.accumulation) +
                             " micro-batches a replica): the config's batch keys");
  return b;
}

// The products' type and the gradients' (communication_data_type, else the products').
std::string precision_of(DeepSpeedReader& r) {
  bool bf16 = r.enabled("bf16"), fp16 = r.enabled("fp16");
  if (bf16 && fp16) throw InputError(r.path, 0, "fp16.enabled", "bf16 and fp16 are both enabled");
  std::string precision = bf16 ? "bf16" : fp16 ? "fp16" : "fp32";
  std::string gradients = precision;
  if (r.config.contains("communication_data_type")) {
    const json& c = r.config["communication_data_type"];
    static const std::set<std::string> types = {"fp32", "fp16", "bf16"};
    if (!c.is_string() || !types.count(c.get<std::string>()))
      throw InputError(r.path, 0, "communication_data_type", "expected fp32, fp16 or bf16");
    gradients = c.get<std::string>();
  }
  r.out.derivation.push_back("precision " + precision + ": bf16.enabled / fp16.enabled");
  r.out.derivation.push_back("gradient_precision " + gradients +
                             (r.config.contains("communication_data_type")
                                  ? ": communication_data_type"
                                  : ": the precision's (no communication_data_type)"));
  return "precision: " + precision + ", gradient_precision: " + gradients;
}

}  // namespace

DeepSpeedImport import_deepspeed(const std::string& path, const DeepSpeedImportOptions& o) {
  json config = read_json_object(path);
  DeepSpeedImport out;
  DeepSpeedReader r{path, config, out};
  long replica = static_cast<long>(o.tensor) * o.pipeline;
  if (o.workers < 1 || o.workers % replica != 0)
    throw InputError(path, 0, "--workers",
                     std::to_string(o.workers) + " workers do not divide into tensor " +
                         std::to_string(o.tensor) + " x pipeline " + std::to_string(o.pipeline));
  static const std::set<std::string> read = {"train_batch_size",
                                             "train_micro_batch_size_per_gpu",
                                             "gradient_accumulation_steps",
                                             "zero_optimization",
                                             "bf16",
                                             "fp16",
                                             "communication_data_type"};
  for (const auto& [key, value] : config.items())
    if (!read.count(key)) out.left_out.push_back(key);
  int zero = zero_stage(r);
  Batch batch = batch_of(r, o.workers / replica);
  std::string precision = precision_of(r);
  out.derivation.push_back("tensor " + std::to_string(o.tensor) + ", pipeline " +
                           std::to_string(o.pipeline) +
                           ": given (the training script sets them, not the config)");
  std::ostringstream y;
  y << "# From DeepSpeed's config " << path << " (scaleout import deepspeed):\n";
  for (const std::string& line : out.derivation) y << "#   " << line << "\n";
  if (!out.left_out.empty()) {
    y << "# Not modelled, left out:\n";
    for (const std::string& key : out.left_out) y << "#   " << key << "\n";
  }
  y << "cluster: " << o.cluster << "\n"
    << "workload: " << o.workload << "\n"
    << "parallelism: { framework: deepspeed, tensor: " << o.tensor << ", pipeline: " << o.pipeline
    << ", microbatch: " << batch.micro << ", zero: " << zero << " }\n"
    << "strategy: { kind: ring }\n"
    << "training: { workers: " << o.workers << ", global_batch: " << batch.total << ", steps: 1, "
    << precision << " }\n";
  out.yaml = y.str();
  return out;
}

std::string deepspeed_config(const Plan& plan) {
  check_framework_runs(plan, Framework::kDeepSpeed, "DeepSpeed's settings");
  const Parallelism& p = *plan.parallelism;
  std::string precision = plan.training.precision.empty() ? "bf16" : plan.training.precision;
  if (precision != "bf16" && precision != "fp16" && precision != "fp32")
    throw InputError(plan.file, plan.training.precision_line, "training.precision",
                     precision + ": DeepSpeed's config sets bf16, fp16 or neither (fp32)");
  ModelSplit s = model_split(plan);
  json config = {{"train_batch_size", s.global_batch},
                 {"train_micro_batch_size_per_gpu", s.microbatch},
                 {"gradient_accumulation_steps", s.microbatches},
                 {"zero_optimization", {{"stage", p.zero}}},
                 {"bf16", {{"enabled", precision == "bf16"}}},
                 {"fp16", {{"enabled", precision == "fp16"}}},
                 {"communication_data_type", plan.training.gradient_precision}};
  return config.dump(2) + "\n";
}

}  // namespace scaleout::core
