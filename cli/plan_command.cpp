// `scaleout plan`: the smallest cluster and strategy that reach a throughput or a time-to-train.
// Exit 0 when a size reaches the target, 1 when none does (the message says why), 2 on bad input.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/commands.hpp"
#include "cli/plan_args.hpp"
#include "cli/plan_search.hpp"
#include "core/plan/framework.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/units.hpp"
#include "explore/planner.hpp"

namespace scaleout::cli {

namespace {

struct PlanCommandArgs {
  std::string plan;
  double target_throughput = 0;
  std::string time_to_train;
  std::string samples_per_epoch;
  double epochs = 0;
  double min_efficiency = 0;
  int max_workers = 1024;
  std::string strategies = "ps,ring,torus2d,hierarchical_ring";
  double price = -1;
  bool json = false;
  bool search = false;  // the best splits of a transformer plan instead
  PlanSearchArgs search_args;
};

// A count with an optional suffix ("1.28M"), or a time: bare seconds ("86400") or a number with a
// time unit ("3600s", "1.5h", "2d").
double parse_value(const std::string& text, core::Quantity q, const char* field) {
  auto v = q == core::Quantity::kTime ? core::parse_seconds(text) : core::parse_quantity(text, q);
  if (!v)
    throw core::InputError("", 0, field, "'" + text + "' is not " + core::quantity_example(q));
  return *v;
}

sim::PlanRequest make_request(const PlanCommandArgs& a) {
  sim::PlanRequest r;
  bool by_time = !a.time_to_train.empty();
  if (by_time == (a.target_throughput > 0))
    throw core::InputError("", 0, "--target-throughput",
                           "give exactly one of --target-throughput or --time-to-train");
  if (by_time) {
    if (a.samples_per_epoch.empty() || a.epochs <= 0)
      throw core::InputError("", 0, "--time-to-train",
                             "needs --samples-per-epoch and --epochs (greater than zero)");
    r.target.kind = sim::PlanTarget::Kind::kTimeToTrain;
    r.target.deadline_s = parse_value(a.time_to_train, core::Quantity::kTime, "--time-to-train");
    r.target.samples_per_epoch =
        parse_value(a.samples_per_epoch, core::Quantity::kCount, "--samples-per-epoch");
    r.target.epochs = a.epochs;
  } else {
    r.target.throughput = a.target_throughput;
  }
  r.min_efficiency = a.min_efficiency;
  r.max_workers = a.max_workers;
  r.strategies.clear();
  std::stringstream in(a.strategies);
  for (std::string name; std::getline(in, name, ',');) {
    auto kind = core::parse_strategy_kind(name);
    if (!kind) throw core::InputError("", 0, "--strategies", "unknown strategy '" + name + "'");
    r.strategies.push_back(*kind);
  }
  if (a.price >= 0) r.price_per_device_hour = a.price;
  return r;
}

void print_option(const char* title, const sim::PlanOption& o) {
  std::printf("%s %s on %d workers (%d devices)\n", title, core::strategy_name(o.strategy),
              o.workers, o.devices);
  std::printf("  step time %.3f ms, throughput %.1f samples/s, scaling efficiency %.1f %%\n",
              o.result.step_time_s * 1e3, o.result.throughput_samples_per_s,
              o.result.scaling_efficiency * 100);
  if (o.train_time_s > 0 && o.result.reliability)
    std::printf("  time to train %.2f h at %.1f %% goodput (failures, checkpoints, restarts)\n",
                o.train_time_s / 3600, 100 * o.result.reliability->goodput);
  else if (o.train_time_s > 0)
    std::printf("  time to train %.2f h\n", o.train_time_s / 3600);
  if (o.cost_per_hour) std::printf("  cost %.2f per hour", *o.cost_per_hour);
  if (o.cost) std::printf(", %.2f for the run", *o.cost);
  if (o.cost_per_hour) std::printf("\n");
  std::printf("  bottleneck: %s\n", o.bottleneck.text.c_str());
}

void print_answer(const sim::PlanAnswer& a) {
  std::printf("target: %.1f samples/s\n", a.required_throughput);
  if (!a.reachable) {
    std::printf("%s\n", a.message.c_str());
    return;
  }
  print_option("smallest cluster:", *a.best);
  if (a.runner_up) print_option("runner-up:", *a.runner_up);
}

// A model-parallel plan keeps its written split at every size here; the search chooses one per
// size and may answer fewer devices.
std::string written_split_hint(const core::Plan& plan) {
  if (!plan.parallelism) return "";
  const core::Parallelism& p = *plan.parallelism;
  return "this answer keeps the written split (tensor " + std::to_string(p.tensor) +
         " x pipeline " + std::to_string(p.pipeline) +
         ") at every size and varies the data-parallel exchange (a sample is a sequence); "
         "`scaleout plan " +
         plan.file + " --search` with the same target chooses the split at each size";
}

void add_search_options(CLI::App* cmd, PlanSearchArgs& a) {
  cmd->add_option("--top", a.search.top, "--search: splits to list (default 10)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--tensor-across-nodes", a.search.tensor_across_nodes,
                "--search: also tensor groups larger than a node");
  cmd->add_option("--memory-margin", a.memory_margin_percent,
                  "--search: percent of the device's memory a split leaves free (default 10)")
      ->check(CLI::Range(0.0, 90.0));
  cmd->add_option("--framework", a.framework,
                  "--search: propose the splits of megatron, deepspeed, fsdp or any (default: the "
                  "plan's parallelism.framework, else megatron)")
      ->check(CLI::IsMember(core::framework_names()));
  cmd->add_option("--tensor", a.search.tensors, "--search: only these tensor degrees (1,2,4,8)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--pipeline", a.search.pipelines, "--search: only these pipeline degrees")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--zero", a.search.zeros, "--search: only these ZeRO stages (0,1)")
      ->delimiter(',')
      ->check(CLI::Range(0, 3));
  cmd->add_option("--expert", a.search.experts,
                  "--search: only these expert-parallel degrees of a mixture of experts (1,8)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--context", a.search.contexts,
                  "--search: these context-parallel degrees (1,2,4); default: the plan's own, or "
                  "every degree that splits the sequence when the plan writes context above 1")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--schedules", a.schedules,
                  "--search: only these schedules: 1f1b, interleaved, gpipe, zero_bubble, "
                  "dualpipev, dualpipe (all but 1f1b and interleaved only when named)")
      ->delimiter(',')
      ->check(
          CLI::IsMember({"1f1b", "interleaved", "gpipe", "zero_bubble", "dualpipev", "dualpipe"}));
  cmd->add_option("--max-virtual-stages", a.search.max_virtual_stages,
                  "--search: interleave at most this many chunks a stage")
      ->check(positive_int());
  cmd->add_option("--emit", a.emit,
                  "--search: also the first split's launch arguments (megatron: Megatron-LM's)")
      ->check(CLI::IsMember({"megatron"}));
  cmd->add_option("--refine", a.refine,
                  "--search: simulate the first K splits on SimGrid and rank them again")
      ->check(positive_int());
  cmd->add_option("-j,--jobs", a.jobs, "--refine: simulations run side by side")
      ->check(positive_int());
  cmd->add_option("--max-events", a.max_events,
                  "--refine: refuse a simulation sending more messages (default 5e6)")
      ->check(positive_number());
  cmd->add_option("--progress", a.progress, "--refine: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

}  // namespace

Action add_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanCommandArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "The smallest cluster and strategy that reach a target (analytic engine; worker counts from\n"
      "the topology's devices per node, doubling, then whole nodes by bisection). Exit 0: "
      "reachable, 1: not reachable, 2: bad "
      "input.\n"
      "Example: scaleout plan experiments/quickstart.yaml --time-to-train 86400 "
      "--samples-per-epoch 1.28M --epochs 90 --min-efficiency 0.8");
  cmd->add_option("plan", args->plan, "plan YAML file")->required()->transform(bundled_input());
  cmd->add_option("--target-throughput", args->target_throughput, "samples/s to reach");
  cmd->add_option("--time-to-train", args->time_to_train,
                  "deadline in seconds (or 3600s, 90min, 1.5h, 2d)");
  cmd->add_option("--samples-per-epoch", args->samples_per_epoch, "e.g. 1281167 or 1.28M");
  cmd->add_option("--epochs", args->epochs, "epochs to train");
  cmd->add_option("--min-efficiency", args->min_efficiency, "scaling efficiency to keep (0..1)");
  cmd->add_option("--max-workers", args->max_workers, "largest worker count to try (default 1024)");
  cmd->add_option("--strategies", args->strategies,
                  "comma-separated (default ps,ring,torus2d,"
                  "hierarchical_ring)");
  cmd->add_option("--price", args->price,
                  "price per device-hour (default: the topology's price_per_device_hour)");
  cmd->add_flag("--json", args->json, "print the answer as JSON");
  cmd->add_flag("--search", args->search,
                "rank every tensor x pipeline x data x micro-batch x schedule x recompute x ZeRO "
                "split of a transformer plan at its workers (closed form); with a target, the "
                "smallest cluster whose best split reaches it");
  add_search_options(cmd, args->search_args);
  return [args]() {
    if (search_options_given(args->search_args) && !args->search)
      throw core::InputError("", 0, "--search",
                             "--refine, --emit, --framework, --tensor, --pipeline, --zero, "
                             "--expert, --context, --schedules "
                             "and --max-virtual-stages choose among the splits of --search: give "
                             "--search");
    if (args->search) {
      args->search_args.json = args->json;
      resolve_search_options(args->search_args);
      if (args->target_throughput > 0 || !args->time_to_train.empty()) {
        sim::PlanRequest target = make_request(*args);  // a sample is a sequence
        args->search_args.target = sim::plan_cluster_target(target);
        args->search_args.max_workers = target.max_workers;
        args->search_args.price = target.price_per_device_hour;
      }
      // The splits refined are listed too.
      auto& top = args->search_args.search.top;
      top = std::max(top, args->search_args.refine);
      core::PlanOverrides searched;  // the search replaces the written split
      searched.split_searched = true;
      return plan_search(core::load_plan(args->plan, searched), args->search_args);
    }
    sim::PlanRequest request = make_request(*args);
    core::Plan plan = core::load_plan(args->plan);
    sim::PlanAnswer answer = sim::plan_cluster(plan, request);
    std::string hint = written_split_hint(plan);
    if (args->json) {
      nlohmann::json j = sim::to_json(answer);
      if (!hint.empty()) j["note"] = hint;
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      print_answer(answer);
      if (!hint.empty()) std::printf("note: %s\n", hint.c_str());
    }
    return answer.reachable ? 0 : 1;
  };
}

}  // namespace scaleout::cli
