// The plan values the window lets a user edit, each read from text by the plan loader's own rules
// (units, ranges, messages), so a value typed in the window means what it means in YAML.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/plan.hpp"

namespace scaleout::gui {

// A plan and the worker counts the window sweeps over.
struct WhatIf {
  core::Plan plan;
  int min_workers = 8;
  int max_workers = 1024;
};

struct PlanField {
  enum class Kind { kText, kChoice, kBool };
  std::string key;    // the YAML field, as the loader names it in errors ("nic.bandwidth")
  std::string label;  // what the window shows
  Kind kind = Kind::kText;
  std::vector<std::string> choices;  // kChoice
  std::function<std::string(const WhatIf&)> get;
  // Parses `text` into `w`. Throws core::InputError with the loader's message for a bad value.
  std::function<void(WhatIf&, const std::string&)> set;
};

// The editable fields, in the order the panel shows them.
const std::vector<PlanField>& plan_fields();

// The field named `key`. REQUIRES: it exists.
const PlanField& plan_field(const std::string& key);

// Human renderings that the unit parser reads back: "100Gbps" (networks count bits), "150GB/s"
// (links inside a node count bytes), "2us", "125TFLOPS".
std::string format_bandwidth(double bytes_per_s);
std::string format_bytes_per_s(double bytes_per_s);
std::string format_time(double seconds);
std::string format_flops(double flops);

}  // namespace scaleout::gui
