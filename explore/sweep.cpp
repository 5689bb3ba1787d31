#include "explore/sweep.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_variation.hpp"
#include "core/plan/plan_writer.hpp"
#include "core/plan/topology.hpp"
#include "explore/sweep_csv.hpp"

namespace scaleout::sim {

namespace {

int parse_positive(const std::string& text, const std::string& whole, const std::string& field) {
  try {
    std::size_t used = 0;
    long v = std::stol(text, &used);
    if (used == text.size() && v >= 1 && v <= 10'000'000) return static_cast<int>(v);
  } catch (...) {
  }
  throw core::InputError("", 0, field,
                         "'" + whole +
                             "' is not a worker list such as 8:1024:x2, 8:64:+8 or 8,16,100 "
                             "(counts from 1 to 10000000)");
}

}  // namespace

const std::vector<std::string>& sweep_columns() {
  static const std::vector<std::string> columns = {"engine",
                                                   "strategy",
                                                   "workers",
                                                   "step_time_s",
                                                   "throughput_samples_per_s",
                                                   "scaling_efficiency",
                                                   "busbw_Bps",
                                                   "staleness_mean",
                                                   "compute_s",
                                                   "comm_s",
                                                   "exposed_comm_s",
                                                   "algbw_Bps",
                                                   "wall_s",
                                                   "plan_hash",
                                                   "fusion",
                                                   "buckets",
                                                   "grid",
                                                   "baseline_workers",
                                                   "baseline_efficiency",
                                                   "tokens_per_s",
                                                   "tokens_per_s_per_device",
                                                   "mfu",
                                                   "memory_bytes",
                                                   "bubble_s",
                                                   "goodput",
                                                   "time_to_train_s",
                                                   "time_to_train_p10_s",
                                                   "time_to_train_p50_s",
                                                   "time_to_train_p90_s"};
  return columns;
}

std::vector<int> parse_worker_list(const std::string& text, const std::string& field) {
  std::vector<int> out;
  auto number = [&](const std::string& part) { return parse_positive(part, text, field); };
  if (text.find(':') != std::string::npos) {
    auto parts = split_fields(text, ':');
    if (parts.size() != 3 || parts[2].size() < 2 || (parts[2][0] != 'x' && parts[2][0] != '+'))
      number("");  // throws
    int start = number(parts[0]), end = number(parts[1]);
    int step = number(parts[2].substr(1));
    bool times = parts[2][0] == 'x';
    if (times && step < 2) number("");
    for (long n = start; n <= end; n = times ? n * step : n + step)
      out.push_back(static_cast<int>(n));
  } else {
    for (const auto& p : split_fields(text, ',')) out.push_back(number(p));
  }
  if (out.empty()) number("");
  return out;
}

namespace {

EngineOptions engine_options(const SweepOptions& o) {
  EngineOptions e;
  e.sim.fidelity = o.fidelity;
  e.sim.max_events = o.max_events;
  e.jobs = o.jobs;
  e.cancel = o.cancel;
  e.on_running = o.on_running;
  return e;
}

// One point of the cross product of the variations: its values, and its plan or why it does not
// load.
struct Variant {
  std::vector<std::string> values;
  std::optional<core::Plan> plan;
  std::string error;
};

std::vector<Variant> make_variants(const core::Plan& base, const std::vector<Variation>& vary) {
  std::size_t total = 1;
  for (const auto& v : vary) total *= v.values.size();
  std::vector<Variant> out(total);
  for (std::size_t i = 0; i < total; ++i) {
    std::vector<core::FieldSetting> settings(vary.size());
    std::size_t rest = i;
    for (std::size_t k = vary.size(); k-- > 0;) {  // the last varies fastest
      settings[k] = {vary[k].field, vary[k].values[rest % vary[k].values.size()]};
      rest /= vary[k].values.size();
    }
    for (const auto& setting : settings) out[i].values.push_back(setting.second);
    try {
      out[i].plan = vary.empty() ? base : core::vary_plan(base, settings, "--vary");
    } catch (const core::InputError& e) {
      out[i].error = e.what();
    }
  }
  return out;
}

std::vector<std::string> varied_fields(const SweepOptions& options) {
  std::vector<std::string> names;
  for (const auto& v : options.vary) names.push_back(v.field);
  return names;
}

// One sweep's run: the points still to run, the CSV and the summary, filled as rows finish.
class SweepRun {
 public:
  SweepRun(const core::Plan& base, const SweepOptions& options)
      : options_(options),
        engine_(make_engine(options.engine, engine_options(options))),
        hash_(sweep_plan_hash(base, options)),
        variants_(make_variants(base, options.vary)) {
    if (!options.shard) return;
    stamp_.emplace();
    stamp_->grid_hash = sweep_grid_hash(base, options);
    stamp_->points = variants_.size() * options.strategies.size() * options.workers.size();
    stamp_->index = options.shard->index;
    stamp_->count = options.shard->count;
  }

  SweepSummary run() {
    open_csv();
    collect_jobs();
    results_.resize(jobs_.size());
    // The baseline points first, so that every row knows its baseline when it is written.
    for (auto [begin, end] :
         {std::pair{std::size_t{0}, baseline_jobs_}, std::pair{baseline_jobs_, jobs_.size()}}) {
      if (cancelled()) break;
      PlanBatch batch{[this](std::size_t i) { return plan_for(jobs_[i]); },
                      [this](std::size_t i) { return jobs_[i].variant; }};
      engine_->predict_each(
          batch, begin, end,
          [this](std::size_t i, core::RunResult&& r) { record(i, std::move(r)); },
          [this](std::size_t i, const std::string& why) { fail(i, why); });
    }
    summary_.cancelled = cancelled();
    csv_.flush();
    std::vector<std::size_t> order(jobs_.size());  // grid order (the baseline ran first)
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return jobs_[a].point < jobs_[b].point; });
    for (std::size_t i : order)
      if (results_[i]) {
        summary_.rows.push_back(std::move(*results_[i]));
        summary_.row_values.push_back(variants_[jobs_[i].variant].values);
      }
    return std::move(summary_);
  }

 private:
  // A point of the grid; its plan is made when it runs (a sweep may have 100,000).
  struct Job {
    core::StrategyKind kind;
    int workers;
    std::size_t point;        // index in the whole grid
    bool row = true;          // false: run only as the baseline of this shard's rows
    std::size_t variant = 0;  // in variants_
  };

  core::Plan plan_for(const Job& j) const {
    core::Plan plan = *variants_[j.variant].plan;
    plan.strategy.kind = j.kind;
    if (j.workers != plan.training.workers) plan.strategy.grid.reset();  // a grid fits one count
    plan.training.workers = j.workers;
    return plan;
  }
  std::string key_of(const Job& j) const {
    std::string key = std::string(engine_name(options_.engine)) + "," +
                      core::strategy_name(j.kind) + "," + std::to_string(j.workers);
    for (const auto& v : variants_[j.variant].values) key += "," + v;
    return key;
  }
  bool cancelled() const { return options_.cancel && options_.cancel->load(); }
  const ShardStamp* stamp() const { return stamp_ ? &*stamp_ : nullptr; }

  void open_csv() {
    if (options_.csv_path.empty()) return;
    lock_ = std::make_unique<CsvLock>(options_.csv_path);
    if (options_.resume)
      done_ = completed_rows(options_.csv_path, hash_, stamp(), varied_fields(options_));
    bool fresh = !options_.resume || !std::filesystem::exists(options_.csv_path) ||
                 std::filesystem::file_size(options_.csv_path) == 0;
    csv_.open(options_.csv_path, fresh);
    if (fresh) csv_.append(sweep_header(stamp_.has_value(), varied_fields(options_)) + "\n", true);
  }

  // Every point not already in the CSV whose plan is valid; the others are counted or reported.
  // The baseline points come first (baseline_jobs_ of them), whether or not they make a row here.
  void collect_jobs() {
    for (int pass = options_.baseline_workers > 0 ? 0 : 1; pass < 2; ++pass) {
      std::size_t point = 0;
      for (std::size_t v = 0; v < variants_.size(); ++v)
        for (auto kind : options_.strategies)
          for (int n : options_.workers) collect_job({kind, n, point++, true, v}, pass);
      if (pass == 0) baseline_jobs_ = jobs_.size();
    }
  }

  // Adds `job` unless it is another shard's (and not a baseline), already in the CSV, or its plan
  // is not valid (reported, once per variant that does not load).
  void collect_job(Job job, int pass) {
    bool baseline = job.workers == options_.baseline_workers;
    if (baseline != (pass == 0)) return;
    job.row = !(stamp_ && job.point % stamp_->count !=
                              static_cast<std::size_t>(stamp_->index));  // another shard's
    if (job.row && done_.count(key_of(job))) {
      ++summary_.skipped;
      job.row = false;
    }
    if (!job.row && !baseline) return;
    const Variant& variant = variants_[job.variant];
    if (!variant.plan) {
      if (job.row && unloaded_.insert(job.variant).second) summary_.errors.push_back(variant.error);
      return;
    }
    try {
      core::Plan plan = plan_for(job);
      core::validate_plan(plan);
      engine_->check(plan);
    } catch (const core::InputError& e) {
      if (job.row) summary_.errors.push_back(key_of(job) + ": " + e.what());
      return;
    }
    jobs_.push_back(job);
  }

  void tick() {
    if (options_.on_progress) options_.on_progress(++finished_, jobs_.size());
  }
  void record(std::size_t i, core::RunResult&& r) {
    std::pair key{jobs_[i].variant, jobs_[i].kind};
    if (i < baseline_jobs_) baselines_[key] = r;
    auto base = baselines_.find(key);
    if (base != baselines_.end()) core::set_baseline(r, base->second);
    if (!jobs_[i].row) return tick();
    if (stamp_) stamp_->point = jobs_[i].point;
    csv_.append(format_sweep_row(r, hash_, stamp(), variants_[jobs_[i].variant].values),
                /*urgent=*/options_.engine != Engine::kAnalytic);
    if (options_.on_row) options_.on_row(r);
    results_[i] = std::move(r);
    tick();
  }
  void fail(std::size_t i, const std::string& why) {
    summary_.errors.push_back(key_of(jobs_[i]) + ": " + why + (jobs_[i].row ? "" : " (baseline)"));
    tick();
  }

  const SweepOptions& options_;
  std::unique_ptr<PredictionEngine> engine_;
  std::string hash_;
  std::vector<Variant> variants_;    // one, the plan itself, when nothing is varied
  std::optional<ShardStamp> stamp_;  // sharded sweeps only
  SweepSummary summary_;
  std::set<std::string> done_;
  std::unique_ptr<CsvLock> lock_;  // before csv_: released after the last row is written
  CsvAppender csv_;
  std::vector<Job> jobs_;
  std::vector<std::optional<core::RunResult>> results_;
  std::size_t finished_ = 0;
  std::size_t baseline_jobs_ = 0;  // jobs_[0, baseline_jobs_) are the baseline points
  // Each variant's baseline point of each strategy.
  std::map<std::pair<std::size_t, core::StrategyKind>, core::RunResult> baselines_;
  std::set<std::size_t> unloaded_;  // variants whose error is reported
};

}  // namespace

std::string sweep_plan_hash(const core::Plan& base, const SweepOptions& options) {
  // The plan as it predicts, whatever file it came from; the points' own kind and size are the
  // grid's (a resumed sweep may add points), so they are left out.
  core::Plan plan = base;
  plan.file.clear();
  plan.cluster.file.clear();
  plan.workload.file.clear();
  plan.strategy.kind = core::StrategyKind::kRing;
  plan.strategy.grid.reset();
  plan.training.workers = 1;
  std::string text =
      core::plan_to_yaml(plan) + engine_name(options.engine) + fidelity_name(options.fidelity);
  for (const auto& v : options.vary) text += "|vary " + v.field;
  return hash_hex(text);
}

std::string sweep_grid_hash(const core::Plan& base, const SweepOptions& options) {
  std::string text = sweep_plan_hash(base, options) + "|";
  for (const auto& v : options.vary) {
    for (const auto& value : v.values) text += value + ",";
    text += "|";
  }
  for (auto kind : options.strategies) text += std::string(core::strategy_name(kind)) + ",";
  text += "|";
  for (int n : options.workers) text += std::to_string(n) + ",";
  return hash_hex(text);
}

SweepSummary run_sweep(const core::Plan& base, const SweepOptions& options) {
  if (options.shard && (options.shard->count < 1 || options.shard->index < 0 ||
                        options.shard->index >= options.shard->count))
    throw core::InputError("", 0, "shard",
                           shard_name(options.shard->index, options.shard->count) +
                               " is not a shard K/N with 0 <= K < N");
  if (options.baseline_workers > 0 &&
      std::find(options.workers.begin(), options.workers.end(), options.baseline_workers) ==
          options.workers.end()) {
    std::string sizes;
    for (int n : options.workers) sizes += (sizes.empty() ? "" : ", ") + std::to_string(n);
    throw core::InputError("", 0, "--baseline-workers",
                           std::to_string(options.baseline_workers) +
                               " is not among the swept worker counts (" + sizes +
                               "): add it to --workers");
  }
  std::set<std::string> fields;
  for (const auto& v : options.vary) {
    if (v.values.empty())
      throw core::InputError("", 0, "--vary", "'" + v.field + "' is given no values");
    if (!fields.insert(v.field).second)
      throw core::InputError("", 0, "--vary", "'" + v.field + "' is varied twice");
  }
  return SweepRun(base, options).run();
}

}  // namespace scaleout::sim
