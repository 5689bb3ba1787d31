// Editing a plan as its YAML: the plan is written out (core/plan/plan_writer.hpp), the edit is
// applied to that YAML, and the plan loader reads it back. A field edited this way means exactly
// what the same edit of a plan file means, with the loader's checks and messages.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <vector>

#include "core/plan/input_error.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/plan_variation.hpp"
#include "gui/plan_fields.hpp"

namespace scaleout::gui {

// The plan's YAML edits live in core (core/plan/plan_variation.hpp): `sweep --vary` uses them too.
using core::loader_message;
using core::plan_with_yaml_edit;
using core::yaml_at;

// A strategy knob's mapping as the writer places it: beside `kind` when the knob applies to the
// plan's kind, else in the section of `owner` (the kind that reads it).
YAML::Node knob_mapping(YAML::Node root, const core::Plan& plan, const std::string& knob,
                        core::StrategyKind owner);

// Building blocks of such fields.
using FieldGetter = std::function<std::string(const WhatIf&)>;
// Applies the typed `text` to the plan's YAML `root`; `plan` is the plan before the edit.
using YamlEdit =
    std::function<void(YAML::Node& root, const core::Plan& plan, const std::string& text)>;
// A rule of the window's own, checked on the loaded plan (throws core::InputError).
using PlanCheck = std::function<void(const core::Plan&)>;

PlanField yaml_field(std::string key, std::string label, PlanField::Kind kind,
                     std::vector<std::string> choices, FieldGetter get, YamlEdit edit,
                     PlanCheck check = {});
PlanField yaml_text(std::string key, std::string label, FieldGetter get, YamlEdit edit,
                    PlanCheck check = {});
// Sets map[key] to `text`; an empty text leaves the key out (the loader's default).
void set_or_remove(YAML::Node map, const std::string& key, const std::string& text);
// "8x16" as the YAML pair [8, 16]; any other text stays text, for the loader to refuse.
YAML::Node pair_node(const std::string& text);
// "8x16"; empty when a is 0 (not set).
std::string pair_text(int a, int b);
// {bandwidth, latency} with every digit.
YAML::Node link_node(const core::LinkSpec& l);
std::string exact(double v, const char* unit);
// A why_off: empty while `applies`, else `why`.
FieldGetter off_unless(std::function<bool(const core::Plan&)> applies, std::string why);
// Every keystroke recomputes: "2" on the way to "25MiB" would be 2-byte buckets. Refuses a size
// under 64KiB, naming `key`.
PlanCheck at_least_64kib(std::string key, std::function<double(const core::Plan&)> bytes);

}  // namespace scaleout::gui
