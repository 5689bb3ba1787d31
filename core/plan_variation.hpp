// A plan with some of its fields set by their dotted names ("parallelism.tensor=4",
// "training.fusion_buffer=16MiB", "nic.bandwidth=25Gbps"): what `sweep --vary` runs. The plan is
// written back as YAML (core/plan_writer.hpp), the fields are set there and the result is loaded
// and validated as any plan file is, so every field the format has can be varied, with the same
// units and checks.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/input_error.hpp"
#include "core/plan.hpp"

namespace scaleout::core {

// One field set to one value: the field's dotted name in the plan, the value as YAML text.
using FieldSetting = std::pair<std::string, std::string>;

// The dotted name of `field` in a plan: as given when the plan has such a field, else the
// cluster's or the workload's (`nic.bandwidth` is `cluster.nic.bandwidth`). Tried with `value`.
// Throws InputError naming `option` ("--vary") and the field when no plan has it, or when it is
// one the caller sets otherwise (`training.workers`: --workers, `strategy.kind`: --strategies).
std::string resolve_field(const Plan& base, const std::string& field, const std::string& value,
                          const std::string& option);

// What `e` says without its "file:line: " (a varied plan is loaded from a temporary file whose
// lines are not the user's).
std::string without_place(const InputError& e);

// `base` with each (resolved) field set. Throws InputError naming `option`, the field and the
// value when the plan so changed does not load ("--vary parallelism.tensor=3: ...").
Plan vary_plan(const Plan& base, const std::vector<FieldSetting>& settings,
               const std::string& option);

}  // namespace scaleout::core
