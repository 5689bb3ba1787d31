// The plan values the window lets a user edit, each read from text by the plan loader's own rules
// (units, ranges, messages), so a value typed in the window means what it means in YAML.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::gui {

// A plan and the worker counts the window sweeps over.
struct WhatIf {
  core::Plan plan;
  int min_workers = 8;
  int max_workers = 1024;
};

struct PlanField {
  enum class Kind { kText, kChoice, kBool };
  PlanField(std::string key, std::string label, Kind kind, std::vector<std::string> choices,
            std::function<std::string(const WhatIf&)> get,
            std::function<void(WhatIf&, const std::string&)> set)
      : key(std::move(key)),
        label(std::move(label)),
        kind(kind),
        choices(std::move(choices)),
        get(std::move(get)),
        set(std::move(set)) {}

  std::string key;    // the YAML field, as the loader names it in errors ("nic.bandwidth")
  std::string label;  // what the window shows
  Kind kind = Kind::kText;
  std::vector<std::string> choices;  // kChoice
  std::function<std::string(const WhatIf&)> get;
  // Parses `text` into `w`. Throws core::InputError with the loader's message for a bad value.
  std::function<void(WhatIf&, const std::string&)> set;
  // Why the field does not apply to `w` (it is shown disabled with this as tooltip); empty when
  // it applies. Unset: it always applies.
  std::function<std::string(const WhatIf&)> why_off;
  // The edit changes how many nodes the cluster has (the network's shape): the sweep range
  // follows, as when another cluster is picked.
  bool resizes = false;
  // What the field means beyond its label (its tooltip while it applies and holds a good value).
  std::string hint;
};

// The panel's groups, in order; each field belongs to one (plan_field_group).
const std::vector<std::string>& plan_field_groups();
std::string plan_field_group(const PlanField& field);

// The editable fields, in the order the panel shows them.
const std::vector<PlanField>& plan_fields();

// The field named `key`. REQUIRES: it exists.
const PlanField& plan_field(const std::string& key);

// Fields edited through the plan's YAML (gui/plan_yaml_edit.hpp), appended to `fields`: the
// network and the node's fabric (plan_fields_network.cpp); gradient fusion, the training's
// efficiency, the torus grid and the parameter server's knobs (plan_fields_knobs.cpp); a
// model-parallel split.
void add_network_fields(std::vector<PlanField>& fields);
void add_knob_fields(std::vector<PlanField>& fields);
void add_parallelism_fields(std::vector<PlanField>& fields);  // plan_fields_parallelism.cpp
void add_compression_fields(std::vector<PlanField>& fields);  // plan_fields_compression.cpp
void add_reliability_fields(std::vector<PlanField>& fields);  // plan_fields_reliability.cpp
PlanField torus_grid_field();                                 // plan_fields_knobs.cpp

// Human renderings that the unit parser reads back: "100Gbps" (networks count bits), "150GB/s"
// (links inside a node count bytes), "2us", "125TFLOPS".
std::string format_bandwidth(double bytes_per_s);
std::string format_bytes_per_s(double bytes_per_s);
std::string format_time(double seconds);
std::string format_flops(double flops);

}  // namespace scaleout::gui
