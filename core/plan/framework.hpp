// Which training framework a model-parallel plan is for, and the splits each one runs: the split
// search proposes only those, and a written split that its framework cannot run is refused.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

const std::vector<std::string>& framework_names();  // in Framework's order
const char* framework_name(Framework framework);
// The framework a name of framework_names() stands for. REQUIRES: one of them.
Framework framework_named(const std::string& name);
// For people: "Megatron-LM", "DeepSpeed", "PyTorch FSDP", "any framework".
const char* framework_title(Framework framework);

struct FrameworkRefusal {
  std::string field;   // the `parallelism.` key at fault; empty: the framework runs the split
  std::string reason;  // why, naming the framework's own limit
  explicit operator bool() const { return !field.empty(); }
};

// Whether `framework` runs the split `p` of a model with (`experts`) or without a mixture of
// experts.
FrameworkRefusal framework_refusal(Framework framework, const Parallelism& p, bool experts = false);

// For a framework's launch settings written from `plan` (`settings`: "Megatron-LM's arguments"):
// throws InputError naming the field when the plan has no `parallelism:` or `framework` does not
// run its split.
void check_framework_runs(const Plan& plan, Framework framework, const std::string& settings);

}  // namespace scaleout::core
