#include "gui/plan_yaml_edit.hpp"

#include <cstdio>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"
#include "core/plan/strategy_settings.hpp"

namespace scaleout::gui {

YAML::Node knob_mapping(YAML::Node root, const core::Plan& plan, const std::string& knob,
                        core::StrategyKind owner) {
  if (core::knob_applies(knob, plan.strategy.kind)) return yaml_at(root, {"strategy"});
  return yaml_at(root, {"strategy", core::strategy_name(owner)});
}

PlanField yaml_field(std::string key, std::string label, PlanField::Kind kind,
                     std::vector<std::string> choices, FieldGetter get, YamlEdit edit,
                     PlanCheck check) {
  PlanField f{std::move(key), std::move(label), kind, std::move(choices), std::move(get), {}};
  f.set = [edit, check](WhatIf& w, const std::string& text) {
    const core::Plan& before = w.plan;
    core::Plan after =
        plan_with_yaml_edit(before, [&](YAML::Node& root) { edit(root, before, text); });
    if (check) check(after);
    w.plan = std::move(after);
  };
  return f;
}

PlanField yaml_text(std::string key, std::string label, FieldGetter get, YamlEdit edit,
                    PlanCheck check) {
  return yaml_field(std::move(key), std::move(label), PlanField::Kind::kText, {}, std::move(get),
                    std::move(edit), std::move(check));
}

void set_or_remove(YAML::Node map, const std::string& key, const std::string& text) {
  if (text.empty())
    map.remove(key);
  else
    map[key] = text;
}

YAML::Node pair_node(const std::string& text) {
  std::size_t x = text.find('x');
  if (x == std::string::npos || x == 0 || x + 1 == text.size()) return YAML::Node(text);
  YAML::Node seq(YAML::NodeType::Sequence);
  seq.push_back(text.substr(0, x));
  seq.push_back(text.substr(x + 1));
  seq.SetStyle(YAML::EmitterStyle::Flow);
  return seq;
}

std::string pair_text(int a, int b) {
  return a > 0 ? std::to_string(a) + "x" + std::to_string(b) : std::string();
}

std::string exact(double v, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf + std::string(unit);
}

YAML::Node link_node(const core::LinkSpec& l) {
  YAML::Node n(YAML::NodeType::Map);
  n["bandwidth"] = exact(l.bandwidth, "B/s");
  n["latency"] = exact(l.latency, "s");
  n.SetStyle(YAML::EmitterStyle::Flow);
  return n;
}

FieldGetter off_unless(std::function<bool(const core::Plan&)> applies, std::string why) {
  return [applies, why](const WhatIf& w) { return applies(w.plan) ? std::string() : why; };
}

PlanCheck at_least_64kib(std::string key, std::function<double(const core::Plan&)> bytes) {
  return [key, bytes](const core::Plan& p) {
    if (bytes(p) < 64 * 1024)
      throw core::InputError("field '" + key + "': at least 64KiB in the window");
  };
}

}  // namespace scaleout::gui
