// Changing a plan as its YAML: the plan is written out (core/plan/plan_writer.hpp), the change is
// made to that YAML and the plan loader reads it back, so a field changed this way means exactly
// what the same change of a plan file means, with the loader's units, checks and messages. The
// GUI's fields edit plans this way; `sweep --vary` sets fields by their dotted names
// ("parallelism.tensor=4", "training.fusion_buffer=16MiB", "nic.bandwidth=25Gbps").
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/plan/input_error.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::core {

// Applies `edit` to the YAML of `plan` (cluster and workload inline, under `cluster:` and
// `workload:`) and loads the result from a temporary file. The plan keeps its own file names and
// warnings, and forgets the temporary file's lines (later messages name the field without a
// line). Throws InputError with the loader's message, the temporary file and line left out:
// "field 'cluster.network.k': a fat tree's k must be even".
Plan plan_with_yaml_edit(const Plan& plan, const std::function<void(YAML::Node& root)>& edit);

// The loader's message without its "FILE:LINE: " prefix.
std::string loader_message(const InputError& e);

// The mapping under `root` at `path`, made when absent ({"cluster", "network"}).
YAML::Node yaml_at(YAML::Node root, const std::vector<std::string>& path);

// Every line a loaded plan remembers, set to 0 (none).
void forget_lines(Plan& plan);

// One field set to one value: the field's dotted name in the plan, the value as YAML text.
using FieldSetting = std::pair<std::string, std::string>;

// The dotted name of `field` in a plan: as given when the plan has such a field, else the
// cluster's or the workload's (`nic.bandwidth` is `cluster.nic.bandwidth`). Tried with `value`.
// Throws InputError naming `option` ("--vary") and the field when no plan has it, or when it is
// one the caller sets otherwise (`training.workers`: --workers, `strategy.kind`: --strategies).
std::string resolve_field(const Plan& base, const std::string& field, const std::string& value,
                          const std::string& option);

// `base` with each (resolved) field set. Throws InputError naming `option`, the field and the
// value when the plan so changed does not load ("--vary parallelism.tensor=3: ...").
Plan vary_plan(const Plan& base, const std::vector<FieldSetting>& settings,
               const std::string& option);

}  // namespace scaleout::core
