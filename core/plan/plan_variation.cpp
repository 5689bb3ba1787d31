#include "core/plan/plan_variation.hpp"

#include <fstream>

#include "core/files/temp_files.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"

namespace scaleout::core {

std::string loader_message(const InputError& e) {
  std::string what = e.what();
  std::string place = e.file();
  if (e.line() > 0) place += ":" + std::to_string(e.line());
  place += ": ";
  if (what.compare(0, place.size(), place) == 0) return what.substr(place.size());
  return what;
}

YAML::Node yaml_at(YAML::Node root, const std::vector<std::string>& path) {
  YAML::Node node = root;
  for (const auto& key : path) {
    if (!node[key].IsMap()) node[key] = YAML::Node(YAML::NodeType::Map);
    node.reset(node[key]);
  }
  return node;
}

void forget_lines(Plan& p) {
  auto& c = p.cluster;
  c.device.memory_line = c.device.compress_line = c.latency_factor_line = c.nics_line = 0;
  c.intra_fabric.line = c.heterogeneity.line = c.host.line = c.transport.line = 0;
  for (auto& l : c.links) l.line = 0;
  auto& w = p.workload;
  w.tensors_line = w.measured_line = w.parameters_line = w.flops_line = 0;
  w.efficiency_by_size_line = 0;
  if (w.transformer) w.transformer->line = 0;
  auto& s = p.strategy;
  s.line = s.grid_line = s.replicas_line = s.softsync_line = s.servers_line = s.chunk_line = 0;
  s.local_aggregation_line = s.server_hosts_line = s.delay_compensation.line = 0;
  auto& t = p.training;
  t.workers_line = t.batch_line = t.steps_line = t.fusion_line = t.efficiency_line = 0;
  t.global_batch_line = t.fusion.line = 0;
  auto& k = t.compression;
  k.line = k.density_line = k.rank_line = k.chunk_line = 0;
  if (auto& m = p.parallelism) {
    m->line = m->tensor_line = m->pipeline_line = m->microbatch_line = m->schedule_line = 0;
    m->virtual_line = m->zero_line = m->framework_line = 0;
  }
  p.stragglers.slow_workers_line = 0;
  for (auto& f : p.resilience.failures) f.line = 0;
}

Plan plan_with_yaml_edit(const Plan& plan, const std::function<void(YAML::Node& root)>& edit) {
  YAML::Node root = YAML::Load(plan_to_yaml(plan));
  edit(root);
  YAML::Emitter out;
  out << root;
  std::string path = make_temp_file("scaleout-edit");
  std::ofstream(path) << out.c_str() << "\n";
  Plan edited;
  try {
    edited = load_plan(path);
  } catch (const InputError& e) {
    remove_temp(path);
    throw InputError(loader_message(e));
  }
  remove_temp(path);
  edited.file = plan.file;
  edited.cluster.file = plan.cluster.file;
  edited.workload.file = plan.workload.file;
  edited.warnings = plan.warnings;
  forget_lines(edited);
  return edited;
}

namespace {

std::vector<std::string> dotted_parts(const std::string& field) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = field.find('.', start);
    parts.push_back(field.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

}  // namespace

Plan vary_plan(const Plan& base, const std::vector<FieldSetting>& settings,
               const std::string& option) {
  try {
    return plan_with_yaml_edit(base, [&](YAML::Node& root) {
      for (const auto& [field, value] : settings) {
        auto parts = dotted_parts(field);
        std::string last = parts.back();
        parts.pop_back();
        yaml_at(root, parts)[last] = YAML::Load(value);
      }
    });
  } catch (const InputError& e) {
    std::string what;
    for (const auto& [field, value] : settings)
      what += (what.empty() ? "" : " ") + field + "=" + value;
    throw InputError(option + " " + what + ": " + e.what());  // the message names the field
  }
}

std::string resolve_field(const Plan& base, const std::string& field, const std::string& value,
                          const std::string& option) {
  if (field == "training.workers")
    throw InputError("", 0, option, "'training.workers' is the sweep's --workers");
  if (field == "strategy.kind")
    throw InputError("", 0, option, "'strategy.kind' is the sweep's --strategies");
  for (const std::string& candidate : {field, "cluster." + field, "workload." + field}) {
    try {
      vary_plan(base, {{candidate, value}}, option);
      return candidate;
    } catch (const InputError& e) {
      // Refused as a key the format does not have: try the next place; else the field exists
      // and the value is what is wrong, which the sweep reports on its rows.
      if (std::string(e.what()).find("unknown key") == std::string::npos) return candidate;
    }
  }
  throw InputError("", 0, option,
                   "no field '" + field + "' in a plan (nor cluster." + field + " or workload." +
                       field + "): see docs/plan-format.md for the fields");
}

}  // namespace scaleout::core
