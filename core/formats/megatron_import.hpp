// A plan from Megatron-LM's command-line arguments (pretrain_gpt.py's own flag names): the model's
// dimensions, its mixture of experts, the split, the batch and the precision. What the arguments
// do not say (the cluster, the world size that torchrun gives, the vocabulary a tokenizer file
// gives) comes from the caller; flags scaleout does not model are listed, never dropped silently.
// The inverse of megatron_args.hpp: exporting an imported plan gives the same arguments back.
#pragma once

#include <string>
#include <vector>

namespace scaleout::core {

struct MegatronImportOptions {
  std::string cluster;  // the plan's `cluster:` as it is to be written
  int workers = 0;      // the world size (>= 1)
  int vocabulary = 0;   // > 0: used when the arguments give no --vocab-size
  std::string name;     // the workload's name; empty: "megatron-<layers>x<hidden>"
};

struct MegatronImport {
  std::string yaml;  // the plan, with the derivation and the flags left out as comments
  std::vector<std::string>
      derivation;                     // one line a field: "tensor 8: --tensor-model-parallel-size"
  std::vector<std::string> left_out;  // flags not modelled, each with its value if it has one
};

// Throws InputError (file "megatron arguments", the flag as the field) for a flag without its
// value, a value out of range, a missing model dimension, or a setting scaleout cannot plan
// (a --cp-comm-type other than p2p or all_gather, a split that does not divide the model).
MegatronImport import_megatron(const std::vector<std::string>& args,
                               const MegatronImportOptions& options);

}  // namespace scaleout::core
