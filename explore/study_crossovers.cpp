// A study's crossover sweeps: where strategies change order as workers grow, why, and whether the
// published claims about them hold.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/topology.hpp"
#include "core/plan/yaml_reader.hpp"
#include "explore/planner.hpp"
#include "explore/study.hpp"

namespace scaleout::sim {

namespace {

core::StrategyKind read_kind(core::YamlMap& m, const std::string& key) {
  return *core::parse_strategy_kind(m.get_choice(key, core::strategy_names()));
}

CrossoverClaim read_claim(const YAML::Node& node, const std::string& file,
                          const std::string& context) {
  core::YamlMap m(node, file, context);
  CrossoverClaim c;
  c.line = core::line_of(node);
  c.better = read_kind(m, "better");
  c.than = read_kind(m, "than");
  if (c.better == c.than) m.fail("than", "names the same strategy as 'better'");
  c.from = m.get_int_or("from", 1, 1);
  c.until = m.get_int_or("until", 0, 0);
  if (c.until > 0 && c.until < c.from) m.fail("until", "is below 'from'");
  c.source = m.get_string("source");
  m.finish();
  return c;
}

// One strategy's exchange at a size, split into the closed form's latency and bandwidth terms.
struct ExchangeSplit {
  double whole = 0, latency = 0;
  std::string limit;  // the planner's reading of the result (compute, a link class, latency)
};

ExchangeSplit split_exchange(const core::Plan& base, core::StrategyKind kind, int workers,
                             const core::RunResult& r) {
  core::Plan plan = plan_at(base, kind, workers);
  auto engine = make_engine(Engine::kAnalytic);
  engine->prepare(plan.cluster, core::devices_needed(plan), false);
  return {engine->exchange_time(plan, plan.gradient_bytes()).value_or(0),
          engine->exchange_time(plan, 0).value_or(0), find_bottleneck(*engine, plan, r).text};
}

std::string ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  return buf;
}

// Why `x.first` falls behind `x.second`: at the first size both ran past the crossing, which
// term of the exchange (latency or bandwidth) makes the difference, and what limits each.
std::string explain(const core::Plan& base, const Curves& curves, const Crossover& x) {
  const core::RunResult *loser = nullptr, *winner = nullptr;
  for (int n : curves.workers) {
    if (n <= x.workers) continue;
    loser = find_point(curves, x.first, n);
    winner = find_point(curves, x.second, n);
    if (loser && winner) break;
  }
  if (!loser || !winner) return "";
  int n = loser->workers;
  ExchangeSplit a = split_exchange(base, *core::parse_strategy_kind(x.first), n, *loser);
  ExchangeSplit b = split_exchange(base, *core::parse_strategy_kind(x.second), n, *winner);
  double d_latency = a.latency - b.latency;
  double d_bandwidth = (a.whole - a.latency) - (b.whole - b.latency);
  std::string term = d_latency >= d_bandwidth ? "latency" : "bandwidth";
  if (term == "bandwidth" && a.limit.find("parameter servers") != std::string::npos)
    term = "the server link";
  std::string overlap =
      a.whole < b.whole ? " (its whole exchange is the shorter: with overlap what stays exposed is "
                          "the last buckets, where latency weighs most)"
                        : "";
  return term + overlap + ": at " + std::to_string(n) + " workers one exchange of " + x.first +
         " takes " + ms(a.whole) + " (" + ms(a.latency) + " of latency) against " + ms(b.whole) +
         " (" + ms(b.latency) + ") for " + x.second + "; " + x.first + " is limited by " + a.limit +
         ", " + x.second + " by " + b.limit;
}

ClaimOutcome check_claim(const Curves& curves, const CrossoverClaim& c) {
  ClaimOutcome o{c, true, ""};
  std::vector<int> checked;
  for (int n : curves.workers) {
    if (n < c.from || (c.until > 0 && n > c.until)) continue;
    const auto* better = find_point(curves, core::strategy_name(c.better), n);
    const auto* than = find_point(curves, core::strategy_name(c.than), n);
    if (!better || !than) continue;
    if (better->scaling_efficiency <= than->scaling_efficiency) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "fails at %d workers: %.1f %% against %.1f %%", n,
                    100 * better->scaling_efficiency, 100 * than->scaling_efficiency);
      return {c, false, buf};
    }
    checked.push_back(n);
  }
  if (checked.empty()) return {c, false, "no size in range where both strategies run"};
  o.detail = "holds at " + std::to_string(checked.size()) + " sizes from " +
             std::to_string(checked.front()) + " to " + std::to_string(checked.back()) + " workers";
  return o;
}

}  // namespace

CrossoverSweep read_crossover_sweep(const YAML::Node& node, const std::string& file,
                                    const std::string& folder, std::size_t index) {
  std::string context = "crossovers[" + std::to_string(index) + "]";
  core::YamlMap m(node, file, context);
  CrossoverSweep s;
  s.line = core::line_of(node);
  s.name = m.get_string("name");
  s.plan_path = (std::filesystem::path(folder) / m.get_string("plan")).lexically_normal().string();
  s.workers = parse_worker_list(m.get_string("workers"), m.field("workers"));
  YAML::Node kinds = m.child("strategies");
  if (!kinds.IsSequence() || kinds.size() < 2) m.fail("strategies", "expected two or more");
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    auto kind = core::parse_strategy_kind(kinds[i].as<std::string>(""));
    if (!kind) m.fail("strategies", "unknown strategy '" + kinds[i].as<std::string>("") + "'");
    s.strategies.push_back(*kind);
  }
  YAML::Node claims = m.child("claims", false);
  if (claims.IsDefined() && !claims.IsSequence()) m.fail("claims", "expected a list");
  for (std::size_t i = 0; claims.IsDefined() && i < claims.size(); ++i)
    s.claims.push_back(read_claim(claims[i], file, context + ".claims[" + std::to_string(i) + "]"));
  for (const auto& c : s.claims)
    for (auto kind : {c.better, c.than})
      if (std::find(s.strategies.begin(), s.strategies.end(), kind) == s.strategies.end())
        throw core::InputError(file, c.line, context + ".claims",
                               std::string("names ") + core::strategy_name(kind) +
                                   ", which is not among the sweep's strategies");
  m.finish();
  core::load_plan(s.plan_path);  // a plan error surfaces now, with its own file and line
  return s;
}

CrossoverOutcome run_crossover_sweep(const CrossoverSweep& sweep) {
  CrossoverOutcome o;
  o.sweep = sweep;
  core::Plan base = core::load_plan(sweep.plan_path);
  o.curves = compute_curves(base, sweep.workers, sweep.strategies);
  for (const Crossover& x : find_crossovers(o.curves))
    o.crossings.push_back({x, explain(base, o.curves, x)});
  for (const auto& c : sweep.claims) o.claims.push_back(check_claim(o.curves, c));
  return o;
}

}  // namespace scaleout::sim
