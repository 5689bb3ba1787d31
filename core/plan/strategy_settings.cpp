#include "core/plan/strategy_settings.hpp"

#include <algorithm>
#include <climits>
#include <limits>
#include <map>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"

namespace scaleout::core {

namespace {

struct Knob {
  std::string name;
  std::vector<StrategyKind> kinds;  // the kinds whose programs read it
};

const std::vector<Knob>& knob_table() {
  using K = StrategyKind;
  static const std::vector<Knob> table = {
      {"chunk",
       {K::kRing, K::kTorus2d, K::kHierarchicalRing, K::kTree, K::kHierarchicalAllreduce,
        K::kHierarchicalHalvingDoubling}},
      {"grid", {K::kTorus2d}},
      {"servers", {K::kPs}},
      {"placement", {K::kPs}},
      {"mode", {K::kPs}},
      {"replicas_to_aggregate", {K::kPs}},
      {"softsync", {K::kPs}},
      {"staleness_bound", {K::kPs}},
      {"local_aggregation", {K::kPs}},
      {"server_hosts", {K::kPs}},
      {"delay_compensation", {K::kPs}},
  };
  return table;
}

const Knob* find_knob(const std::string& name) {
  for (const auto& k : knob_table())
    if (k.name == name) return &k;
  return nullptr;
}

std::string kinds_text(const Knob& knob) {
  std::string out;
  for (std::size_t i = 0; i < knob.kinds.size(); ++i) {
    if (i > 0) out += i + 1 == knob.kinds.size() ? " or " : ", ";
    out += strategy_name(knob.kinds[i]);
  }
  return out;
}

// Where a knob was given, for errors that involve two knobs and are found once all are read.
struct Given {
  int line = 0;
  std::string field;
};

// Reads the knobs of one mapping (the flat strategy mapping or one kind's section) into a
// Strategy, refusing a knob given twice (`chunk` in two sections, or flat and in a section).
class KnobReader {
 public:
  explicit KnobReader(Strategy& s) : s_(s) {}

  void read(YamlMap& m, const std::string& knob) {
    YAML::Node value = m.node()[knob];
    auto [it, fresh] = given_.emplace(knob, Given{line_of(value), m.field(knob)});
    if (!fresh)
      m.fail(knob, "given twice (also as '" + it->second.field + "' at line " +
                       std::to_string(it->second.line) + "); it is one setting for " +
                       kinds_text(*find_knob(knob)));
    if (knob == "chunk") s_.chunk = m.get_quantity("chunk", Quantity::kBytes);
    if (knob == "grid") read_grid(m);
    if (knob == "servers") s_.ps_servers = m.get_int("servers", 1, kMaxNodes);
    if (knob == "placement")
      s_.ps_placement = m.get_choice("placement", {"dedicated", "colocated"}) == "colocated"
                            ? PsPlacement::kColocated
                            : PsPlacement::kDedicated;
    if (knob == "mode")
      s_.ps_mode =
          m.get_choice("mode", {"sync", "async"}) == "async" ? PsMode::kAsync : PsMode::kSync;
    if (knob == "replicas_to_aggregate") s_.replicas_to_aggregate = m.get_int(knob, 1);
    if (knob == "softsync") s_.softsync = m.get_int(knob, 1);
    if (knob == "staleness_bound") s_.staleness_bound = m.get_int(knob, 0);  // omitted: -1
    if (knob == "local_aggregation")
      s_.ps_local_aggregation = m.get_choice(knob, {"none", "node"}) == "node"
                                    ? PsAggregation::kNode
                                    : PsAggregation::kNone;
    if (knob == "server_hosts")
      s_.ps_server_hosts =
          m.get_choice(knob, {"gpu", "cpu"}) == "cpu" ? PsServerHosts::kCpu : PsServerHosts::kGpu;
    if (knob == "delay_compensation") read_delay_compensation(m);
  }

  // The parameter-server knobs that exclude each other.
  void check_combinations(const std::string& file) const {
    bool async = s_.ps_mode == PsMode::kAsync;
    if (!async && given_.count("staleness_bound"))
      fail(file, "staleness_bound", "bounded staleness applies to mode: async");
    if (async && given_.count("softsync")) fail(file, "softsync", "applies to mode: sync");
    if (async && given_.count("replicas_to_aggregate"))
      fail(file, "replicas_to_aggregate", "applies to mode: sync");
    if (given_.count("replicas_to_aggregate") && given_.count("softsync"))
      fail(file, "softsync", "choose replicas_to_aggregate (backup workers) or softsync, not both");
    if (!async && given_.count("delay_compensation"))
      fail(file, "delay_compensation",
           "delay compensation (DC-ASGD) applies to mode: async, whose gradients arrive stale");
  }

  int line_of_knob(const std::string& knob) const {
    auto it = given_.find(knob);
    return it == given_.end() ? 0 : it->second.line;
  }

 private:
  void read_grid(YamlMap& m) {
    YAML::Node grid = m.child("grid");
    if (!grid.IsSequence() || grid.size() != 2) m.fail("grid", "expected [X, Y], e.g. [8, 16]");
    std::array<int, 2> g{};
    for (int i = 0; i < 2; ++i) {
      auto v = read_whole(grid[i], 1, INT_MAX);
      if (!v) m.fail("grid", "expected two whole numbers, each " + whole_range(1, INT_MAX));
      g[i] = static_cast<int>(*v);
    }
    s_.grid = g;
  }

  // `delay_compensation: { lambda: 0.04, learning_rate: 0.01 }` (each optional; lambda >= 0).
  void read_delay_compensation(YamlMap& m) {
    YAML::Node node = m.child("delay_compensation");
    if (!node.IsMap()) m.fail("delay_compensation", "expected a mapping, e.g. { lambda: 0.04 }");
    YamlMap dc(node, m.file(), m.field("delay_compensation"));
    DelayCompensation& d = s_.delay_compensation;
    d.on = true;
    d.line = line_of(node);
    constexpr double kAny = std::numeric_limits<double>::max();
    d.lambda = dc.get_double("lambda", -kAny, kAny, d.lambda);
    if (d.lambda < 0)
      dc.fail("lambda", "must be 0 or more (DC-ASGD's variance control; 0 compensates nothing)");
    d.learning_rate = dc.get_double("learning_rate", -kAny, kAny, d.learning_rate);
    if (d.learning_rate <= 0) dc.fail("learning_rate", "must be positive");
    dc.finish();
  }

  [[noreturn]] void fail(const std::string& file, const std::string& knob,
                         const std::string& what) const {
    const Given& g = given_.at(knob);
    throw InputError(file, g.line, g.field, what);
  }

  Strategy& s_;
  std::map<std::string, Given> given_;
};

StrategyKind read_kind(YamlMap& m) {
  std::string kind = m.get_string("kind");
  auto parsed = parse_strategy_kind(kind);
  if (!parsed) {
    std::string list;
    for (const auto& n : strategy_names()) list += (list.empty() ? "" : " | ") + n;
    m.fail("kind", "unknown strategy '" + kind + "'; expected one of: " + list);
  }
  return *parsed;
}

bool applies_to_any(const Knob& knob, const std::vector<StrategyKind>& kinds) {
  return std::any_of(kinds.begin(), kinds.end(),
                     [&](StrategyKind k) { return knob_applies(knob.name, k); });
}

std::string section_advice(const Knob& knob) {
  return "write it in the section of the kind it is for, e.g. '" +
         std::string(strategy_name(knob.kinds.front())) + ": { " + knob.name + ": ... }'";
}

// The knobs given flat beside `kind`.
void read_flat(YamlMap& m, KnobReader& reader, StrategyKind kind,
               const std::vector<StrategyKind>& will_run, std::vector<std::string>& warnings) {
  for (const auto& knob : knob_table()) {
    if (!m.has(knob.name)) continue;
    std::string not_here = "does not apply to kind " + std::string(strategy_name(kind)) +
                           " (it is read by " + kinds_text(knob) + ")";
    if (!knob_applies(knob.name, kind)) {
      if (!applies_to_any(knob, will_run))
        m.fail(knob.name, not_here + "; " + section_advice(knob));
      InputError note(m.file(), line_of(m.node()[knob.name]), m.field(knob.name),
                      "deprecated: " + not_here + "; " + section_advice(knob));
      warnings.push_back(note.what());
    }
    reader.read(m, knob.name);
  }
}

// The sections named after a kind: `ps: { servers: 8 }`.
void read_sections(YamlMap& m, KnobReader& reader) {
  for (const auto& name : strategy_names()) {
    if (!m.has(name)) continue;
    StrategyKind kind = *parse_strategy_kind(name);
    YamlMap section(m.child(name), m.file(), m.field(name));
    for (const auto& kv : section.node()) {
      std::string key = kv.first.Scalar();
      const Knob* knob = find_knob(key);
      if (!knob) continue;  // finish() names it as an unknown key
      if (!knob_applies(key, kind))
        section.fail(
            key, "does not apply to kind " + name + " (it is read by " + kinds_text(*knob) + ")");
      reader.read(section, key);
    }
    section.finish();
  }
}

}  // namespace

bool knob_applies(const std::string& knob, StrategyKind kind) {
  const Knob* k = find_knob(knob);
  return k && std::find(k->kinds.begin(), k->kinds.end(), kind) != k->kinds.end();
}

Strategy read_strategy(YamlMap& plan, const std::vector<StrategyKind>& will_run,
                       std::vector<std::string>& warnings) {
  YAML::Node node = plan.child("strategy");
  YamlMap m(node, plan.file(), "strategy");
  Strategy s;
  s.line = line_of(node);
  s.kind = read_kind(m);
  KnobReader reader(s);
  read_flat(m, reader, s.kind, will_run, warnings);
  read_sections(m, reader);
  m.finish();
  reader.check_combinations(m.file());
  s.grid_line = reader.line_of_knob("grid");
  s.replicas_line = reader.line_of_knob("replicas_to_aggregate");
  s.softsync_line = reader.line_of_knob("softsync");
  s.servers_line = reader.line_of_knob("servers");
  s.chunk_line = reader.line_of_knob("chunk");
  s.local_aggregation_line = reader.line_of_knob("local_aggregation");
  s.server_hosts_line = reader.line_of_knob("server_hosts");
  return s;
}

}  // namespace scaleout::core
