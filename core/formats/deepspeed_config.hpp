// DeepSpeed's JSON config (ds_config.json) in and out: the batch (train_batch_size,
// train_micro_batch_size_per_gpu, gradient_accumulation_steps), the ZeRO stage, the precision and
// the gradients' data type. The model and the pipeline and tensor degrees live in the training
// script (PipelineModule's num_stages, a tensor-parallel library), not in the config: the caller
// gives them on import, and export says so.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

struct DeepSpeedImportOptions {
  std::string cluster;   // the plan's `cluster:` as it is to be written
  std::string workload;  // the plan's `workload:` (a workload file) as it is to be written
  int workers = 0;       // the world size (>= 1)
  int tensor = 1, pipeline = 1;
};

struct DeepSpeedImport {
  std::string yaml;                     // the plan, with the derivation as comments
  std::vector<std::string> derivation;  // one line a field: "zero 3: zero_optimization.stage"
  std::vector<std::string> left_out;    // keys not modelled ("gradient_clipping", ...)
};

// Throws InputError naming the file and the key for a file that is not a JSON object, a batch whose
// three figures disagree, an offload (not modelled) or a value out of range.
DeepSpeedImport import_deepspeed(const std::string& path, const DeepSpeedImportOptions& options);

// The plan's batch, ZeRO stage and precision as a DeepSpeed config (2-space indented JSON).
// REQUIRES: a validated plan with `parallelism:`. Throws InputError naming the field for what
// DeepSpeed does not run (parallelism.framework refuses it: interleaved stages, ZeRO-2/3 with
// pipeline stages).
std::string deepspeed_config(const Plan& plan);

}  // namespace scaleout::core
