#include "core/plan_variation.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>

#include "core/input_error.hpp"
#include "core/plan_loader.hpp"
#include "core/plan_writer.hpp"
#include "core/temp_files.hpp"

namespace scaleout::core {

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

// Sets `field` (dotted) in `root` to `value`, making the maps on the way.
void set_field(YAML::Node root, const std::string& field, const std::string& value) {
  auto parts = dotted_parts(field);
  std::vector<YAML::Node> path{root};  // yaml-cpp nodes are handles: keep each level alive
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = path.back()[parts[i]];
    if (!next.IsMap()) next = YAML::Node(YAML::NodeType::Map);
    path.back()[parts[i]] = next;
    path.push_back(path.back()[parts[i]]);
  }
  path.back()[parts.back()] = YAML::Load(value);
}

// The plan text with the settings applied, loaded from a temporary file.
Plan load_varied(const Plan& base, const std::vector<FieldSetting>& settings,
                 const std::string& option) {
  YAML::Node root = YAML::Load(plan_to_yaml(base));
  std::string what;
  for (const auto& [field, value] : settings) {
    set_field(root, field, value);
    what += (what.empty() ? "" : " ") + field + "=" + value;
  }
  YAML::Emitter out;
  out << root;
  std::string path = make_temp_file("scaleout-vary");
  std::ofstream(path) << out.c_str() << "\n";
  try {
    Plan plan = load_plan(path);
    remove_temp(path);
    plan.file = base.file;  // results name the plan the user gave
    return plan;
  } catch (const InputError& e) {
    remove_temp(path);
    throw InputError(option + " " + what + ": " + without_place(e));  // names the field
  }
}

}  // namespace

std::string without_place(const InputError& e) {
  std::string message = e.what();
  std::string place = e.file() + (e.line() > 0 ? ":" + std::to_string(e.line()) : "") + ": ";
  return !e.file().empty() && message.rfind(place, 0) == 0 ? message.substr(place.size())
                                                            : message;
}

std::string resolve_field(const Plan& base, const std::string& field, const std::string& value,
                          const std::string& option) {
  if (field == "training.workers")
    throw InputError("", 0, option, "'training.workers' is the sweep's --workers");
  if (field == "strategy.kind")
    throw InputError("", 0, option, "'strategy.kind' is the sweep's --strategies");
  for (const std::string& candidate : {field, "cluster." + field, "workload." + field}) {
    try {
      load_varied(base, {{candidate, value}}, option);
      return candidate;
    } catch (const InputError& e) {
      // Refused as a key the format does not have: try the next place; else the field exists
      // and the value is what is wrong, which the sweep reports on its rows.
      std::string message = e.what();
      if (message.find("field '") != std::string::npos &&
          message.find("unknown key") != std::string::npos)
        continue;
      return candidate;
    }
  }
  throw InputError("", 0, option,
                   "no field '" + field + "' in a plan (nor cluster." + field + " or workload." +
                       field + "): see docs/plan-format.md for the fields");
}

Plan vary_plan(const Plan& base, const std::vector<FieldSetting>& settings,
               const std::string& option) {
  return load_varied(base, settings, option);
}

}  // namespace scaleout::core
