#include "cli/plan_args.hpp"

#include <climits>
#include <cmath>
#include <cstdio>

#include "core/files/bundled_data.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/topology.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "exec/cuda_backend.hpp"
#include "exec/emulated_cluster.hpp"

namespace scaleout::cli {

CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](const std::string& value) {
        return value.empty() ? std::string("an empty file name: give a path") : std::string();
      },
      "PATH", "non-empty path");
}

CLI::Validator bundled_input() {
  return CLI::Validator(
      [](std::string& value) {
        if (value.empty()) return std::string("an empty file name: give a path");
        std::string found = core::bundled_path(value);
        if (found != value)
          std::fprintf(stderr, "note: %s is not in this directory: using the bundled %s\n",
                       value.c_str(), found.c_str());
        value = found;
        return std::string();
      },
      "PATH", "input file");
}

CLI::Validator positive_int() { return CLI::Range(1, INT_MAX); }

CLI::Validator positive_number() {
  return CLI::Validator(
      [](const std::string& value) {
        double v = 0;
        bool ok = CLI::detail::lexical_cast(value, v) && std::isfinite(v) && v > 0;
        return ok ? std::string() : "'" + value + "' is not a number greater than 0";
      },
      "POSITIVE", "positive number");
}

CLI::Validator finite_range(double min_value, double max_value) {
  return CLI::Validator(
      [=](const std::string& value) {
        double v = 0;
        // NaN compares false with everything, so it fails both bounds.
        bool ok = CLI::detail::lexical_cast(value, v) && v >= min_value && v <= max_value;
        char range[64];
        std::snprintf(range, sizeof range, "%g to %g", min_value, max_value);
        return ok ? std::string() : "'" + value + "' is not a number from " + range;
      },
      "NUMBER", "number in range");
}

void print_plan_warnings(const core::Plan& plan) {
  for (const auto& line : plan.warnings) std::fprintf(stderr, "warning: %s\n", line.c_str());
}

void add_plan_options(CLI::App* cmd, PlanArgs& args) {
  cmd->add_option("plan", args.plan, "plan YAML file")->required()->transform(bundled_input());
  cmd->add_option("--workers", args.workers, "override training.workers")->check(positive_int());
  cmd->add_option("--strategy", args.strategy, "override strategy.kind");
}

core::Plan load_plan_args(const PlanArgs& args) {
  core::PlanOverrides overrides;
  if (args.workers > 0) overrides.workers = args.workers;
  if (!args.strategy.empty()) {
    overrides.strategy = core::parse_strategy_kind(args.strategy);
    if (!overrides.strategy)
      throw core::InputError("", 0, "--strategy", "unknown strategy '" + args.strategy + "'");
  }
  core::Plan plan = core::load_plan(args.plan, overrides);
  print_plan_warnings(plan);
  return plan;
}

void use_emulated_cluster(exec::ExecOptions& options, const core::Plan* plan) {
  auto cluster = exec::current_cluster();
  if (!cluster)
    throw core::InputError("", 0, "--cluster",
                           "no emulated cluster is up: run 'scaleout cluster up TOPOLOGY' first");
  if (plan) {
    // Measured on another cluster, a run would time the wrong links (or loopback) without a word.
    std::string why = exec::topology_mismatch(
        *cluster, core::Topology::build(plan->cluster, core::devices_needed(*plan)),
        plan->cluster.name, plan->cluster.calibrated_from);
    if (!why.empty())
      throw core::InputError(plan->cluster.file.empty() ? plan->file : plan->cluster.file, 0,
                             "cluster",
                             why + " (run 'scaleout cluster up' with the plan's topology)");
  }
  options.node_netns = cluster->node_netns;
  options.node_ip = cluster->node_ip;
  options.node_rail_ip = cluster->node_rail_ip;
}

std::string gpus_unavailable(const core::Plan& plan, bool local) {
  if (!exec::cuda_built())
    throw core::InputError("", 0, "--backend cuda", exec::cuda_unavailable(0));
  int servers = plan.strategy.kind == core::StrategyKind::kPs && !core::uses_ps_training(plan)
                    ? plan.strategy.ps_servers
                    : 0;
  return exec::cuda_unavailable(local ? plan.training.workers + servers : 1);
}

}  // namespace scaleout::cli
