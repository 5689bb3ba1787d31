// Strict reading of YAML mappings: every key must be known, every value of the expected kind, and
// every error names the file, the line and the field.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/units.hpp"

namespace scaleout::core {

// Loads a YAML file. Throws InputError when it is missing or not valid YAML (with the line).
YAML::Node load_yaml_file(const std::string& path);

// 1-based line of a node (0 when the node carries no position).
int line_of(const YAML::Node& node);

// A mapping being read. Construct it, read the fields, then call finish(): it throws for any key
// that was never read, naming it. `context` prefixes field names in errors ("cluster.nic").
class YamlMap {
 public:
  YamlMap(const YAML::Node& node, std::string file, std::string context);

  bool has(const std::string& key) const;
  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return file_; }
  std::string field(const std::string& key) const;  // "context.key"

  // Returns the child node and marks the key as read; throws when required and absent.
  YAML::Node child(const std::string& key, bool required = true);

  std::string get_string(const std::string& key);
  std::string get_string(const std::string& key, const std::string& fallback);
  // One of `allowed`; the error lists them.
  std::string get_choice(const std::string& key, const std::vector<std::string>& allowed,
                         std::optional<std::string> fallback = std::nullopt);
  // A quantity with a unit (see units.hpp); `min_exclusive` rejects values <= 0 when true.
  double get_quantity(const std::string& key, Quantity q, bool positive = true);
  double get_quantity(const std::string& key, Quantity q, double fallback, bool positive = true);
  long get_int(const std::string& key, long min_value);
  long get_int(const std::string& key, long min_value, long fallback);
  double get_double(const std::string& key, double min_value, double max_value);
  double get_double(const std::string& key, double min_value, double max_value, double fallback);
  bool get_bool(const std::string& key, bool fallback);

  // Throws for the first key of the mapping that no getter consumed.
  void finish() const;

  // Throws an InputError about `key` (line of the key's value when present, else the mapping's).
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

 private:
  double quantity_of(const std::string& key, const YAML::Node& value, Quantity q, bool positive);

  YAML::Node node_;
  std::string file_;
  std::string context_;
  std::set<std::string> read_;
};

// Reads a scalar node as a quantity, failing with file/line/field on error.
double read_quantity(const YAML::Node& value, Quantity q, const std::string& file,
                     const std::string& field, bool positive = true);

}  // namespace scaleout::core
