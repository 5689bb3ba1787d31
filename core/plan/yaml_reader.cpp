#include "core/plan/yaml_reader.hpp"

#include <yaml-cpp/eventhandler.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/plan/input_error.hpp"

namespace scaleout::core {

namespace fs = std::filesystem;

namespace {

std::string read_bounded(const std::string& path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw InputError(path, 0, "", "cannot open file (does it exist?)");
  if (!fs::is_regular_file(status))
    throw InputError(path, 0, "", "not a regular file (a plan and its parts are YAML files)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file (is it readable?)");
  // Read in pieces, up to one byte past the limit: a file that grows while read stays bounded.
  std::string text;
  char piece[1 << 16];
  while (text.size() <= kMaxYamlFileBytes && in.read(piece, sizeof piece).gcount() > 0)
    text.append(piece, static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxYamlFileBytes)
    throw InputError(path, 0, "",
                     "larger than " + std::to_string(kMaxYamlFileBytes >> 20) + " MiB: not a plan");
  return text;
}

std::string number_text(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

// Parses without building nodes; remembers where the second document starts.
class IgnoreEvents : public YAML::EventHandler {
 public:
  int second_line = 0;
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++started_ == 2) second_line = mark.line + 1;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  int started_ = 0;
};

}  // namespace

YAML::Node load_yaml_file(const std::string& path) {
  std::string text = read_bounded(path);
  YAML::Node node;
  try {
    // Documents are counted first, at most two: yaml-cpp 0.7's LoadAll never ends on some
    // malformed texts (",*" yields documents for ever), and one file holds one document.
    std::stringstream stream(text);
    YAML::Parser parser(stream);
    IgnoreEvents ignore;
    int documents = 0;
    while (documents < 2 && parser.HandleNextDocument(ignore)) ++documents;
    if (documents == 0)
      throw InputError(path, 0, "", "expected a YAML mapping at the top (the file is empty)");
    if (documents > 1)
      throw InputError(
          path, ignore.second_line, "",
          "a second YAML document ('---'): one file holds one plan, topology or workload");
    node = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(path, e.mark.is_null() ? 0 : e.mark.line + 1, "",
                     "YAML syntax error: " + e.msg);
  }
  if (!node.IsMap())
    throw InputError(path, line_of(node), "", "expected a YAML mapping at the top");
  check_keys(node, path);
  return node;
}

namespace {

// Aliases let a small file name the same node many times ("billion laughs"): the walk counts the
// nodes it visits and stops far beyond any plan.
constexpr long kMaxNodesVisited = 1'000'000;

// Plans nest a few levels; an alias to a mapping that holds it nests for ever (the fuzzer's
// `&a ... *a` overflowed the stack before a million nodes).
constexpr int kMaxDepth = 64;

// `at` names the node in errors ("training", "layers[2]").
void check_keys_of(const YAML::Node& node, const std::string& file, const std::string& at,
                   long& visited, int depth) {
  if (++visited > kMaxNodesVisited)
    throw InputError(file, line_of(node), at,
                     "more than a million YAML nodes (aliases?): not a plan");
  if (depth > kMaxDepth)
    throw InputError(file, line_of(node), at,
                     "nested more than " + std::to_string(kMaxDepth) +
                         " levels deep (an alias inside what it names?): not a plan");
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      check_keys_of(node[i], file, at + "[" + std::to_string(i) + "]", visited, depth + 1);
    return;
  }
  if (!node.IsMap()) return;
  std::set<std::string> seen;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar())
      throw InputError(
          file, line_of(kv.first), at,
          "a key must be a plain name (a complex key, a mapping or list as key, is not)");
    std::string key = at.empty() ? kv.first.Scalar() : at + "." + kv.first.Scalar();
    if (!seen.insert(kv.first.Scalar()).second)
      throw InputError(file, line_of(kv.first), key, "given twice in the same mapping");
    check_keys_of(kv.second, file, key, visited, depth + 1);
  }
}

}  // namespace

void check_keys(const YAML::Node& node, const std::string& file) {
  long visited = 0;
  check_keys_of(node, file, "", visited, 0);
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
  if (!value.IsScalar())
    throw InputError(file, line_of(value), field, "expected " + quantity_example(q));
  const std::string& text = value.Scalar();
  std::string why;
  auto parsed = parse_quantity(text, q, &why);
  if (!parsed && why == "not finite")
    throw InputError(file, line_of(value), field, "'" + text + "' is not a finite number in range");
  if (!parsed)
    throw InputError(file, line_of(value), field, "'" + text + "' is not " + quantity_example(q));
  if (positive && *parsed <= 0)
    throw InputError(file, line_of(value), field, "'" + text + "' must be greater than zero");
  if (*parsed < 0)
    throw InputError(file, line_of(value), field, "'" + text + "' must not be negative");
  return *parsed;
}

std::string whole_range(long long min_value, long long max_value) {
  return "a whole number from " + std::to_string(min_value) + " to " + std::to_string(max_value);
}

std::optional<long long> read_whole(const YAML::Node& value, long long min_value,
                                    long long max_value) {
  long long out = 0;
  // decode fails for text that is not a whole number or does not fit a long long.
  if (!value.IsScalar() || !YAML::convert<long long>::decode(value, out)) return std::nullopt;
  if (out < min_value || out > max_value) return std::nullopt;
  return out;
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

int YamlMap::get_int(const std::string& key, int min_value, int max_value) {
  auto out = read_whole(child(key), min_value, max_value);
  if (!out) fail(key, "expected " + whole_range(min_value, max_value));
  return static_cast<int>(*out);
}

int YamlMap::get_int_or(const std::string& key, int min_value, int fallback, int max_value) {
  if (!has(key)) {
    read_.insert(key);
    return fallback;
  }
  return get_int(key, min_value, max_value);
}

long long YamlMap::get_long_or(const std::string& key, long long min_value, long long fallback) {
  if (!has(key)) {
    read_.insert(key);
    return fallback;
  }
  auto out = read_whole(child(key), min_value, LLONG_MAX);
  if (!out) fail(key, "expected " + whole_range(min_value, LLONG_MAX));
  return *out;
}

double YamlMap::get_double(const std::string& key, double min_value, double max_value) {
  YAML::Node v = child(key);
  double out = 0;
  if (!v.IsScalar() || !YAML::convert<double>::decode(v, out)) fail(key, "expected a number");
  if (!std::isfinite(out)) fail(key, "'" + v.Scalar() + "' is not a finite number");
  if (out < min_value || out > max_value)
    fail(key, "must be between " + number_text(min_value) + " and " + number_text(max_value));
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
    std::string key = kv.first.Scalar();
    if (!read_.count(key)) throw InputError(file_, line_of(kv.first), field(key), "unknown key");
  }
}

}  // namespace scaleout::core
