#include "exec/measured.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/formats/trace.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "exec/model_parallel_rank.hpp"

namespace scaleout::exec {

namespace {

const char* engine_name(const ExecOptions& options) {
  return options.backend == Backend::kCuda ? "cuda" : "cpu";
}

// The keys every executed result starts from.
core::RunResult measured_result(const core::Plan& plan, int servers, const ExecOptions& options) {
  core::RunResult r = core::result_header(plan, engine_name(options), "measured", servers);
  // A scaled compute phase measures the exchange honestly but not the workload's step: say so.
  if (options.compute_scale == 0) {
    r.warnings.push_back("compute left out (--compute-scale 0): the step is the exchange alone");
  } else if (options.compute_scale != 1) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "compute ran %g of the plan's FLOPs (--compute-scale): the compute time, "
                  "throughput and scaling efficiency are not the workload's",
                  options.compute_scale);
    r.warnings.push_back(line);
  }
  return r;
}

// Each rank's clock starts when its process does; within one rank the spans are exact.
void write_ps_trace(const core::Plan& plan, const std::vector<nlohmann::json>& reports,
                    const ExecOptions& options) {
  core::Trace trace;
  for (int w = 0; w < plan.training.workers; ++w) {
    int track = trace.add_track("worker " + std::to_string(w));
    for (const auto& s : reports[w]["ps_steps"]) {
      double start = s["start"], pull_end = s["pull_end"], compute_end = s["compute_end"],
             end = s["end"];
      trace.span(track, "pull", "comm", start, pull_end - start);
      trace.span(track, "compute", "compute", pull_end, compute_end - pull_end);
      trace.span(track, "push", "comm", compute_end, end - compute_end);
    }
  }
  trace.write(options.trace_path, std::string(engine_name(options)) + " ps, " +
                                      std::to_string(plan.training.workers) + " workers");
}

void write_collective_trace(const core::Plan& plan, const std::vector<nlohmann::json>& reports,
                            const ExecOptions& options) {
  core::Trace trace;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    int w = static_cast<int>(r);
    int track = trace.add_track(w < plan.training.workers
                                    ? "worker " + std::to_string(w)
                                    : "server " + std::to_string(w - plan.training.workers));
    for (const auto& p : reports[r]["phases"])
      trace.span(track, p[0], p[1], p[2], p[3].get<double>() - p[2].get<double>());
  }
  trace.write(options.trace_path, std::string(engine_name(options)) + " " +
                                      core::strategy_name(plan.strategy.kind) + ", " +
                                      std::to_string(plan.training.workers) + " workers");
}

// A parameter-server training run: workers report their steps on their own clocks, servers their
// staleness, accepted gradients and the check of their sums.
core::RunResult aggregate_ps(const core::Plan& plan, const std::vector<nlohmann::json>& reports,
                             int servers, const ExecOptions& options) {
  int workers = plan.training.workers;
  core::RunResult r = measured_result(plan, servers, options);
  double span = 0, compute = 0, comm = 0;
  long steps = 0;
  for (int w = 0; w < workers; ++w) {
    const auto& st = reports[w]["ps_steps"];
    if (st.empty()) continue;
    span = std::max(span, reports[w]["done"].get<double>() - st.front()["start"].get<double>());
    for (const auto& s : st) {
      compute += s["compute_end"].get<double>() - s["pull_end"].get<double>();
      comm += (s["pull_end"].get<double>() - s["start"].get<double>()) +
              (s["end"].get<double>() - s["compute_end"].get<double>());
      ++steps;
    }
  }
  std::vector<long> histogram;
  for (int j = 0; j < servers; ++j) {
    const auto& rep = reports[workers + j];
    std::vector<long> h = rep["staleness"].get<std::vector<long>>();
    if (h.size() > histogram.size()) histogram.resize(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) histogram[i] += h[i];
    r.wrong += rep["wrong"].get<long>();
    if (j == 0) {  // each gradient reaches every shard as one piece: count it once
      r.gradients.applied = rep["applied"].get<long>();
      r.gradients.dropped = rep["dropped"].get<long>();
    }
  }
  r.staleness = core::staleness_from_histogram(histogram);
  int per_worker = plan.training.steps;
  r.step_time_s = span / per_worker;
  // As the simulator counts them: step s ends when the last worker is through its step s, each
  // worker's times taken from its own start (ranks on several hosts have their own clocks).
  std::vector<double> step_end(per_worker, 0.0);
  for (int w = 0; w < workers; ++w) {
    const auto& st = reports[w]["ps_steps"];
    if (st.empty()) continue;
    double start = st.front()["start"].get<double>();
    for (const auto& s : st) {
      int k = s["step"].get<int>();
      if (k < per_worker) step_end[k] = std::max(step_end[k], s["end"].get<double>() - start);
    }
  }
  if (per_worker > 0) step_end.back() = std::max(step_end.back(), span);  // through the last push
  double previous = 0;
  for (int s = 0; s < per_worker; ++s) {
    step_end[s] = std::max(step_end[s], previous);
    r.steps.push_back({s, step_end[s] - previous});
    previous = step_end[s];
  }
  r.phases.compute_s = steps ? compute / steps : 0;
  r.phases.comm_s = steps ? comm / steps : 0;
  core::fill_derived(r, plan.training.batch_per_worker);
  // Only applied gradients train the model.
  core::derive_from_applied(r, plan.training.batch_per_worker,
                            static_cast<double>(r.gradients.applied), span);
  return r;
}

}  // namespace

core::RunResult aggregate(const core::Plan& plan, const std::vector<nlohmann::json>& reports,
                          int servers, const ExecOptions& options, double wall) {
  if (plan.parallelism) {
    core::RunResult r = aggregate_model_parallel(plan, reports, options);
    if (!options.trace_path.empty())
      r.warnings.push_back("no measured timeline for model-parallel runs yet (--trace)");
    return r;
  }
  if (core::uses_ps_training(plan)) {
    core::RunResult r = aggregate_ps(plan, reports, servers, options);
    if (!options.trace_path.empty()) write_ps_trace(plan, reports, options);
    r.resilience.wall_s = wall;
    return r;
  }
  int workers = plan.training.workers, steps = plan.training.steps;
  core::RunResult r = measured_result(plan, servers, options);
  double step_sum = 0, compute_sum = 0, comm_sum = 0;
  for (int s = 0; s < steps; ++s) {
    double step = 0, comm = 0, compute = 0;
    for (int w = 0; w < workers; ++w) {
      const auto& st = reports[w]["steps"][s];
      double start = st["start"], compute_end = st["compute_end"], end = st["end"];
      step = std::max(step, end - start);
      comm = std::max(comm, st["comm_s"].get<double>());
      compute += (compute_end - start) / workers;
      r.wrong += st["wrong"].get<long>();
    }
    r.steps.push_back({s, step});
    if (s == 0)  // a GPU run's warm-up step is checked too
      for (int w = 0; w < workers; ++w) r.wrong += reports[w].value("warm_up_wrong", 0L);
    step_sum += step;
    compute_sum += compute;
    comm_sum += comm;
  }
  if (!options.trace_path.empty()) write_collective_trace(plan, reports, options);
  r.step_time_s = step_sum / steps;
  r.phases.compute_s = compute_sum / steps;
  r.phases.comm_s = comm_sum / steps;
  core::fill_derived(r, plan.training.batch_per_worker);
  r.gradients.applied = static_cast<long>(workers) * steps;
  r.staleness = core::staleness_from_histogram({r.gradients.applied});
  r.resilience.wall_s = wall;
  // Gloo's algorithms: a run lasts as long as its slowest rank; the median run, per algorithm.
  const auto& first = reports[0]["baselines"];
  for (std::size_t b = 0; b < first.size(); ++b) {
    core::Baseline base;
    base.name = first[b]["name"];
    if (first[b].contains("error")) {
      base.error = first[b]["error"];
      r.baselines.push_back(base);
      continue;
    }
    std::vector<double> runs(first[b]["times_s"].size(), 0.0);
    for (int w = 0; w < workers; ++w) {
      const auto& mine = reports[w]["baselines"][b];
      for (std::size_t i = 0; i < runs.size(); ++i)
        runs[i] = std::max(runs[i], mine["times_s"][i].get<double>());
      base.wrong += mine["wrong"].get<long>();
    }
    std::sort(runs.begin(), runs.end());
    base.time_s = runs.empty() ? 0 : runs[runs.size() / 2];
    base.algbw_Bps = r.bytes / base.time_s;
    base.busbw_Bps = base.algbw_Bps * 2.0 * (workers - 1) / workers;
    r.baselines.push_back(base);
  }
  return r;
}

}  // namespace scaleout::exec
