// A plan's split and model as Megatron-LM's command-line arguments (pretrain_gpt.py), so that a
// chosen split is launched as planned instead of typed again by hand.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

// The arguments, in the order Megatron-LM's --help groups them (model, split, batch, precision).
// REQUIRES: a validated plan with a transformer workload. Throws InputError naming the field for
// what Megatron-LM does not run (ZeRO-2/3, GPipe, a plan without `parallelism:` is split 1 x 1).
std::vector<std::string> megatron_arguments(const Plan& plan);

}  // namespace scaleout::core
