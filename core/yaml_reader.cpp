#include "core/yaml_reader.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/input_error.hpp"

namespace scaleout::core {

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open file (does it exist?)");
  std::stringstream text;
  text << in.rdbuf();
  try {
    YAML::Node node = YAML::Load(text.str());
    if (!node.IsMap()) throw InputError(path, line_of(node), "", "expected a YAML mapping at the top");
    return node;
  } catch (const YAML::ParserException& e) {
    throw InputError(path, e.mark.line + 1, "", "YAML syntax error: " + e.msg);
  }
}

int line_of(const YAML::Node& node) {
  if (!node.IsDefined()) return 0;
  return node.Mark().is_null() ? 0 : node.Mark().line + 1;
}

YamlMap::YamlMap(const YAML::Node& node, std::string file, std::string context)
    : node_(node), file_(std::move(file)), context_(std::move(context)) {
  if (!node_.IsMap())
    throw InputError(file_, line_of(node_), context_, "expected a mapping of keys to values");
}

bool YamlMap::has(const std::string& key) const { return node_[key].IsDefined(); }

std::string YamlMap::field(const std::string& key) const {
  return context_.empty() ? key : context_ + "." + key;
}

void YamlMap::fail(const std::string& key, const std::string& what) const {
  YAML::Node value = node_[key];
  int line = value.IsDefined() ? line_of(value) : line_of(node_);
  throw InputError(file_, line, field(key), what);
}

YAML::Node YamlMap::child(const std::string& key, bool required) {
  read_.insert(key);
  YAML::Node value = node_[key];
  if (!value.IsDefined() && required) fail(key, "missing (required)");
  return value;
}

std::string YamlMap::get_string(const std::string& key) {
  YAML::Node v = child(key);
  if (!v.IsScalar()) fail(key, "expected a string");
  return v.as<std::string>();
}

std::string YamlMap::get_string(const std::string& key, const std::string& fallback) {
  if (!has(key)) {
    read_.insert(key);
    return fallback;
  }
  return get_string(key);
}

std::string YamlMap::get_choice(const std::string& key, const std::vector<std::string>& allowed,
                                std::optional<std::string> fallback) {
  std::string value = fallback && !has(key) ? (read_.insert(key), *fallback) : get_string(key);
  for (const auto& a : allowed)
    if (a == value) return value;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : " | ") + a;
  fail(key, "'" + value + "' is not one of: " + list);
}

double read_quantity(const YAML::Node& value, Quantity q, const std::string& file,
                     const std::string& field, bool positive) {
  if (!value.IsScalar()) throw InputError(file, line_of(value), field, "expected " + quantity_example(q));
  auto parsed = parse_quantity(value.as<std::string>(), q);
  if (!parsed)
    throw InputError(file, line_of(value), field,
                     "'" + value.as<std::string>() + "' is not " + quantity_example(q));
  if (positive && *parsed <= 0)
    throw InputError(file, line_of(value), field,
                     "'" + value.as<std::string>() + "' must be greater than zero");
  if (*parsed < 0)
    throw InputError(file, line_of(value), field, "'" + value.as<std::string>() + "' must not be negative");
  return *parsed;
}

double YamlMap::quantity_of(const std::string& key, const YAML::Node& value, Quantity q,
                            bool positive) {
  return read_quantity(value, q, file_, field(key), positive);
}

double YamlMap::get_quantity(const std::string& key, Quantity q, bool positive) {
  return quantity_of(key, child(key), q, positive);
}

double YamlMap::get_quantity(const std::string& key, Quantity q, double fallback, bool positive) {
  if (!has(key)) {
    read_.insert(key);
    return fallback;
  }
  return get_quantity(key, q, positive);
}

long YamlMap::get_int(const std::string& key, long min_value) {
  YAML::Node v = child(key);
  long out = 0;
  if (!v.IsScalar() || !YAML::convert<long>::decode(v, out)) fail(key, "expected a whole number");
  if (out < min_value) fail(key, "must be at least " + std::to_string(min_value));
  return out;
}

long YamlMap::get_int(const std::string& key, long min_value, long fallback) {
  if (!has(key)) {
    read_.insert(key);
    return fallback;
  }
  return get_int(key, min_value);
}

double YamlMap::get_double(const std::string& key, double min_value, double max_value) {
  YAML::Node v = child(key);
  double out = 0;
  if (!v.IsScalar() || !YAML::convert<double>::decode(v, out)) fail(key, "expected a number");
  if (out < min_value || out > max_value)
    fail(key, "must be between " + std::to_string(min_value) + " and " + std::to_string(max_value));
  return out;
}

double YamlMap::get_double(const std::string& key, double min_value, double max_value,
                           double fallback) {
  if (!has(key)) {
    read_.insert(key);
    return fallback;
  }
  return get_double(key, min_value, max_value);
}

bool YamlMap::get_bool(const std::string& key, bool fallback) {
  if (!has(key)) {
    read_.insert(key);
    return fallback;
  }
  YAML::Node v = child(key);
  bool out = false;
  if (!v.IsScalar() || !YAML::convert<bool>::decode(v, out)) fail(key, "expected true or false");
  return out;
}

void YamlMap::finish() const {
  for (const auto& kv : node_) {
    std::string key = kv.first.as<std::string>();
    if (!read_.count(key))
      throw InputError(file_, line_of(kv.first), field(key), "unknown key");
  }
}

}  // namespace scaleout::core
