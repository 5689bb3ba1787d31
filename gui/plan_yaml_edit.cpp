#include "gui/plan_yaml_edit.hpp"

#include <QDir>
#include <QTemporaryFile>
#include <cstdio>

#include "core/input_error.hpp"
#include "core/plan_loader.hpp"
#include "core/plan_writer.hpp"
#include "core/strategy_settings.hpp"

namespace scaleout::gui {

std::string loader_message(const core::InputError& e) {
  std::string what = e.what();
  std::string place = e.file();
  if (e.line() > 0) place += ":" + std::to_string(e.line());
  place += ": ";
  if (what.compare(0, place.size(), place) == 0) return what.substr(place.size());
  return what;
}

namespace {

// The lines of a plan loaded from the temporary file point into no file the user has: later
// messages (validation, the engines) name the field without a line.
void forget_lines(core::Plan& p) {
  auto& s = p.strategy;
  s.line = s.grid_line = s.replicas_line = s.softsync_line = s.servers_line = s.chunk_line = 0;
  s.local_aggregation_line = s.server_hosts_line = 0;
  auto& t = p.training;
  t.workers_line = t.batch_line = t.steps_line = t.fusion_line = t.efficiency_line = 0;
  t.fusion.line = 0;
  auto& c = p.cluster;
  c.nics_line = c.intra_fabric.line = c.heterogeneity.line = c.host.line = 0;
  for (auto& l : c.links) l.line = 0;
  p.workload.measured_line = 0;
  p.stragglers.slow_workers_line = 0;
  for (auto& f : p.resilience.failures) f.line = 0;
}

}  // namespace

YAML::Node yaml_at(YAML::Node root, const std::vector<std::string>& path) {
  YAML::Node node = root;
  for (const auto& key : path) {
    if (!node[key].IsMap()) node[key] = YAML::Node(YAML::NodeType::Map);
    node.reset(node[key]);
  }
  return node;
}

YAML::Node knob_mapping(YAML::Node root, const core::Plan& plan, const std::string& knob,
                        core::StrategyKind owner) {
  if (core::knob_applies(knob, plan.strategy.kind)) return yaml_at(root, {"strategy"});
  return yaml_at(root, {"strategy", core::strategy_name(owner)});
}

core::Plan plan_with_yaml_edit(const core::Plan& plan,
                               const std::function<void(YAML::Node& root)>& edit) {
  YAML::Node root = YAML::Load(core::plan_to_yaml(plan));
  edit(root);
  QTemporaryFile file(QDir::tempPath() + "/scaleout-edit-XXXXXX.yaml");
  if (!file.open()) throw core::InputError("", 0, "", "cannot write a temporary plan file");
  YAML::Emitter out;
  out << root;
  file.write(out.c_str(), static_cast<qint64>(out.size()));
  file.close();
  core::Plan edited;
  try {
    edited = core::load_plan(file.fileName().toStdString());
  } catch (const core::InputError& e) {
    throw core::InputError(loader_message(e));
  }
  edited.file = plan.file;
  edited.cluster.file = plan.cluster.file;
  edited.workload.file = plan.workload.file;
  edited.warnings = plan.warnings;
  forget_lines(edited);
  return edited;
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
