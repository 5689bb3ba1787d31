#include "cli/plan_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/export_megatron.hpp"
#include "cli/sim_progress_line.hpp"
#include "core/formats/megatron_args.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/input_error.hpp"
#include "explore/split_plan_confirm.hpp"

namespace scaleout::cli {

namespace {

std::string split_text(const core::ModelParallelOutcome& m) {
  std::string s = m.schedule;
  if (m.virtual_stages > 1) s += " v" + std::to_string(m.virtual_stages);
  return s;
}

constexpr const char* kSplitHeader = "%3s %3s %5s %3s %-14s %-9s %4s %3s";

// The columns beyond the split's own: each split's expert degree (a mixture of experts) and its
// context degree (where a split splits the sequence).
struct Columns {
  bool experts = false, contexts = false;
};

void print_split(const core::ModelParallelOutcome& m, Columns columns) {
  std::printf("%3d %3d %5d %3d %-14s %-9s %4d %3s", m.tensor, m.pipeline, m.data, m.microbatch,
              split_text(m).c_str(), m.recompute.c_str(), m.zero,
              m.sequence_parallel ? "yes" : "no");
  if (columns.experts) std::printf(" %3d", m.expert);
  if (columns.contexts) std::printf(" %3d", m.context);
}

void print_split_header(Columns columns) {
  std::printf(kSplitHeader, "tp", "pp", "dp", "mb", "schedule", "recompute", "zero", "sp");
  if (columns.experts) std::printf(" %3s", "ep");
  if (columns.contexts) std::printf(" %3s", "cp");
}

Columns columns_of(const sim::SplitSearch& s) {
  Columns c;
  c.experts = !s.best.empty() && s.best[0].plan.workload.transformer->moe.has_value();
  for (const auto& split : s.best) c.contexts |= split.plan.parallelism->context > 1;
  return c;
}

void print_table(const sim::SplitSearch& s) {
  std::printf("%s's splits (parallelism.framework: %s; --framework any for every combination)\n",
              core::framework_title(s.framework), core::framework_name(s.framework));
  Columns columns = columns_of(s);
  if (columns.experts)
    std::printf(
        "ep: expert parallelism, the experts shared out over runs of ep data-parallel "
        "ranks (dp counts them)\n");
  if (columns.contexts)
    std::printf("cp: context parallelism, each sequence over cp ranks beside tp, pp and dp\n");
  // Under failure rates each split's goodput, which the ranking counts (sim::ranked_step).
  bool goodput = !s.best.empty() && s.best[0].result.reliability.has_value();
  if (goodput)
    std::printf(
        "goodput: the share of wall time kept under the plan's failure rates, checkpoints and "
        "restarts (reliability:); ranked by step / goodput\n");
  std::printf("%4s ", "#");
  print_split_header(columns);
  std::printf(" %10s %10s %6s %14s", "step (s)", "tokens/s", "MFU", "memory (GB)");
  if (goodput) std::printf(" %7s", "goodput");
  std::printf("  %s\n", "bottleneck");
  int rank = 0;
  bool tied = false;
  for (std::size_t i = 0; i < s.best.size(); ++i) {
    const sim::SplitCandidate& c = s.best[i];
    const core::ModelParallelOutcome& m = *c.result.model_parallel;
    bool ties_above = i > 0 && sim::same_step(c.result, s.best[i - 1].result);
    tied = tied || ties_above;
    std::printf("%3d%s ", ++rank, ties_above ? "=" : " ");
    print_split(m, columns);
    std::printf(" %10.3f %10.0f %5.1f%% %6.1f / %5.1f", c.result.step_time_s, m.tokens_per_s,
                100 * m.mfu, m.memory.total / 1e9, m.memory.capacity / 1e9);
    if (goodput) std::printf(" %6.1f%%", 100 * c.result.reliability->goodput);
    std::printf("  %s\n", c.bottleneck.c_str());
  }
  if (tied)
    std::printf(
        "=: the same step as the row above (their differences change nothing the engines "
        "time; the one needing less memory first)\n");
  std::printf("%ld splits evaluated in %.2f s", s.evaluated, s.wall_s);
  for (const auto& [why, count] : s.dropped) {
    std::printf("; %ld left out: %s", count, why.c_str());
    if (why.find("memory") != std::string::npos && s.memory_margin > 0)
      std::printf(" (less a %g%% margin)", 100 * s.memory_margin);
  }
  std::printf("\n");
}

void print_refinement(const sim::SplitSearch& s, const sim::SplitRefinement& r) {
  Columns columns = columns_of(s);
  std::printf("\nsimulated (SimGrid), ranked again:\n%4s %4s ", "#", "was");
  print_split_header(columns);
  std::printf(" %12s %12s %7s\n", "closed (s)", "simulated (s)", "diff");
  int rank = 0;
  for (const auto& split : r.order) {
    const sim::SplitCandidate& c = s.best[split.closed_form_rank - 1];
    std::printf("%4d %4d ", ++rank, split.closed_form_rank);
    print_split(*c.result.model_parallel, columns);
    if (split.simulated)
      std::printf(" %12.3f %12.3f %+6.1f%%\n", c.result.step_time_s, split.simulated->step_time_s,
                  100 * (split.simulated->step_time_s / c.result.step_time_s - 1));
    else
      std::printf(" %12.3f %12s\n", c.result.step_time_s, "-");
  }
  for (const auto& line : r.changes) std::printf("%s\n", line.c_str());
}

nlohmann::json candidate_json(const sim::SplitCandidate& c) {
  nlohmann::json r = core::to_json(c.result);
  return {{"parallelism", r["parallelism"]},
          {"step_time_s", c.result.step_time_s},
          {"tokens_per_s", r["tokens_per_s"]},
          {"mfu", r["mfu"]},
          {"memory_bytes", r["memory_bytes"]},
          {"phases", r["phases"]},
          {"bottleneck", c.bottleneck},
          {"goodput", c.result.reliability ? nlohmann::json(c.result.reliability->goodput)
                                           : nlohmann::json()}};
}

nlohmann::json refinement_json(const sim::SplitSearch& s, const sim::SplitRefinement& r) {
  nlohmann::json order = nlohmann::json::array();
  for (const auto& split : r.order) {
    nlohmann::json one = candidate_json(s.best[split.closed_form_rank - 1]);
    one["closed_form_rank"] = split.closed_form_rank;
    one["simulated_step_time_s"] =
        split.simulated ? nlohmann::json(split.simulated->step_time_s) : nlohmann::json();
    if (!split.error.empty()) one["error"] = split.error;
    order.push_back(one);
  }
  return {{"best", order}, {"changes", r.changes}};
}

nlohmann::json to_json(const sim::SplitSearch& s) {
  nlohmann::json best = nlohmann::json::array();
  for (const auto& c : s.best) best.push_back(candidate_json(c));
  return {{"framework", core::framework_name(s.framework)},
          {"evaluated", s.evaluated},
          {"dropped", s.dropped},
          {"wall_s", s.wall_s},
          {"best", best}};
}

bool none_simulated(const sim::SplitRefinement& r) {
  for (const auto& split : r.order)
    if (split.simulated) return false;
  return true;
}

// The smallest cluster for the target, then its splits as plan_search prints them.
std::optional<sim::SplitPlanAnswer> smallest_cluster(const core::Plan& plan,
                                                     const PlanSearchArgs& args) {
  if (!(args.target > 0)) return std::nullopt;
  sim::SplitPlanRequest request;
  request.sequences_per_s = args.target;
  request.max_workers = args.max_workers;
  request.price_per_device_hour = args.price;
  request.search = args.search;
  return sim::smallest_split_cluster(plan, request);
}

// `simulated`: the message is the closed form's, and simulation's line follows.
void print_target(const sim::SplitPlanAnswer& a, double target, int sequence, bool simulated) {
  std::printf("target: %.1f sequences/s (%.0f tokens/s)\n%s%s\n", target, target * sequence,
              simulated && a.reachable ? "closed form: " : "", a.message.c_str());
  std::string sizes;  // the first ten and the last two of a long list
  for (std::size_t i = 0; i < a.tried.size(); ++i) {
    if (i >= 10 && i + 2 < a.tried.size()) {
      if (i == 10) sizes += ", ...";
      continue;
    }
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(a.tried[i]);
  }
  std::printf("%zu worker counts searched: %s\n\n", a.tried.size(), sizes.c_str());
}

nlohmann::json target_json(const sim::SplitPlanAnswer& a, double target) {
  return {{"reachable", a.reachable},
          {"required_sequences_per_s", target},
          {"workers", a.reachable ? nlohmann::json(a.workers) : nlohmann::json()},
          {"tried", a.tried},
          {"cost_per_hour", a.cost_per_hour ? nlohmann::json(*a.cost_per_hour) : nlohmann::json()},
          {"message", a.message}};
}

}  // namespace

bool search_options_given(const PlanSearchArgs& a) {
  const sim::SplitSearchOptions& s = a.search;
  return a.refine > 0 || !a.emit.empty() || !a.framework.empty() || !a.schedules.empty() ||
         !s.tensors.empty() || !s.pipelines.empty() || !s.zeros.empty() || !s.experts.empty() ||
         !s.contexts.empty() || s.max_virtual_stages > 0;
}

void resolve_search_options(PlanSearchArgs& a) {
  a.search.memory_margin = a.memory_margin_percent / 100;
  if (!a.framework.empty()) a.search.framework = core::framework_named(a.framework);
  a.search.schedules.clear();
  for (const std::string& name : a.schedules)
    a.search.schedules.push_back(core::schedule_named(name));
}

sim::RefineOptions refine_options(const PlanSearchArgs& args) {
  sim::RefineOptions o;
  o.count = args.refine;
  o.jobs = args.jobs;
  o.sim.max_events = args.max_events;
  o.on_running = progress_printer(args.progress);
  return o;
}

int plan_search(const core::Plan& plan, const PlanSearchArgs& args) {
  if (plan.cluster.device.memory <= 0)
    throw core::InputError(plan.cluster.file, 0, "device.memory",
                           "plan --search ranks splits by the memory each needs: give the "
                           "device's memory (or a device preset, `scaleout devices`)");
  std::optional<sim::SplitPlanAnswer> cluster = smallest_cluster(plan, args);
  std::optional<sim::SplitRefinement> refined;
  std::string confirmation;  // with a target and --refine: what simulation said of the answer
  if (cluster && args.refine > 0) {
    sim::SplitPlanRequest request;
    request.sequences_per_s = args.target;
    request.max_workers = args.max_workers;
    request.search = args.search;
    sim::ConfirmedCluster c =
        sim::confirm_by_simulation(plan, request, std::move(*cluster), refine_options(args));
    cluster = std::move(c.answer);
    refined = std::move(c.refinement);
    confirmation = c.message;
  }
  sim::SplitSearch s = cluster ? cluster->search : sim::search_splits(plan, args.search);
  if (!refined && args.refine > 0 && !s.best.empty())
    refined = sim::refine_splits(s, refine_options(args));
  if (args.json) {
    nlohmann::json j = to_json(s);
    if (refined) j["refined"] = refinement_json(s, *refined);
    if (cluster) j["target"] = target_json(*cluster, args.target);
    if (!confirmation.empty()) j["target"]["simulation"] = confirmation;
    if (args.emit == "megatron" && !s.best.empty())
      j["megatron_arguments"] = core::megatron_arguments(s.best.front().plan);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    if (cluster)
      print_target(*cluster, args.target, plan.workload.transformer->sequence,
                   !confirmation.empty());
    if (!confirmation.empty() && (!cluster || cluster->message != confirmation))
      std::printf("%s\n\n", confirmation.c_str());
    print_table(s);
    if (refined) print_refinement(s, *refined);
    if (args.emit == "megatron" && !s.best.empty())
      std::printf("\n%s", megatron_text(s.best.front().plan).c_str());
  }
  if (cluster && !cluster->reachable) return 1;
  if (s.best.empty() || (refined && none_simulated(*refined))) return 1;
  return 0;
}

}  // namespace scaleout::cli
