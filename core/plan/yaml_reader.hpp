// Strict reading of YAML mappings: every key must be known, every value of the expected kind, and
// every error names the file, the line and the field.
#pragma once

#include <yaml-cpp/yaml.h>

#include <climits>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/plan/units.hpp"

namespace scaleout::core {

// Largest YAML file read (an include of /dev/zero or a huge file is refused, not read forever).
inline constexpr std::uintmax_t kMaxYamlFileBytes = 16u << 20;

// Loads a YAML file. Throws InputError when it is missing, not a regular file, larger than
// kMaxYamlFileBytes, not valid YAML (with the line), holds more than one document, or a mapping
// with a duplicate key or a key that is not a plain scalar (complex keys).
YAML::Node load_yaml_file(const std::string& path);

// Throws InputError (with the line of the offending key) for a duplicate or non-scalar key in any
// mapping under `node`. yaml-cpp itself keeps the first of two equal keys silently.
void check_keys(const YAML::Node& node, const std::string& file);

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
  // A finite quantity with a unit (see units.hpp); `positive` rejects values <= 0, else values
  // below 0 are rejected.
  double get_quantity(const std::string& key, Quantity q, bool positive = true);
  double get_quantity(const std::string& key, Quantity q, double fallback, bool positive = true);
  // A whole number in [min_value, max_value], checked before it is narrowed to int.
  int get_int(const std::string& key, int min_value, int max_value = INT_MAX);
  int get_int_or(const std::string& key, int min_value, int fallback, int max_value = INT_MAX);
  long long get_long_or(const std::string& key, long long min_value, long long fallback);
  // A finite number in [min_value, max_value] (".nan" and ".inf" are refused).
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

// Reads a scalar node as a whole number in [min_value, max_value]; nullopt when it is not one.
std::optional<long long> read_whole(const YAML::Node& value, long long min_value,
                                    long long max_value);

// "a whole number from 1 to 2147483647" (for error messages).
std::string whole_range(long long min_value, long long max_value);

}  // namespace scaleout::core
