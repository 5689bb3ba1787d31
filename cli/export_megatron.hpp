// A plan's Megatron-LM arguments as text for a launch script (`export megatron`, and
// `plan --search --emit megatron` for the winner).
#pragma once

#include <string>

#include "core/plan/plan.hpp"

namespace scaleout::cli {

// A comment naming the plan and its GPUs, then one argument (with its value) a line, each but the
// last ending in " \". Throws InputError for what Megatron-LM does not run.
std::string megatron_text(const core::Plan& plan);

}  // namespace scaleout::cli
