#include "sim/sweep.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "core/input_error.hpp"
#include "core/plan_loader.hpp"
#include "core/topology.hpp"
#include "sim/analytic.hpp"
#include "sim/simulator.hpp"

namespace scaleout::sim {

namespace {

int parse_positive(const std::string& text, const std::string& whole) {
  try {
    std::size_t used = 0;
    long v = std::stol(text, &used);
    if (used == text.size() && v >= 1 && v <= 10'000'000) return static_cast<int>(v);
  } catch (...) {
  }
  throw core::InputError("", 0, "--workers",
                         "'" + whole + "' is not a worker list such as 8:1024:x2, 8:64:+8 or 8,16,100");
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

std::string format_row(const core::RunResult& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s,%s,%d,%.9g,%.9g,%.6f,%.9g,%.6g,%.9g,%.9g,%.9g,%.9g,%.4g\n", r.engine.c_str(),
                r.strategy.c_str(), r.workers, r.step_time_s, r.throughput_samples_per_s, r.scaling_efficiency,
                r.busbw_Bps, r.staleness.mean, r.phases.compute_s, r.phases.comm_s, r.phases.exposed_comm_s,
                r.algbw_Bps, r.wall_s);
  return buf;
}

std::string header_line() {
  std::string h;
  for (const auto& c : sweep_columns()) h += (h.empty() ? "" : ",") + c;
  return h;
}

// Reads the rows already in `path` (resume). Cuts off a last line left incomplete by an
// interruption, so that appending continues on a row boundary.
std::set<std::string> completed_rows(const std::string& path) {
  std::set<std::string> done;
  std::ifstream in(path, std::ios::binary);
  if (!in) return done;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::size_t complete = text.rfind('\n');
  complete = complete == std::string::npos ? 0 : complete + 1;
  if (complete != text.size()) std::filesystem::resize_file(path, complete);
  auto lines = split(text.substr(0, complete), '\n');
  if (lines.empty()) return done;
  if (lines.front() != header_line())
    throw std::runtime_error("cannot resume " + path + ": its header is not this sweep's columns");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto f = split(lines[i], ',');
    if (f.size() >= 3) done.insert(f[0] + "," + f[1] + "," + f[2]);
  }
  return done;
}

// Appends complete rows to the CSV. Rows are buffered and written whole (never split), at the
// latest every half second, so a sweep killed at any moment leaves only complete rows behind.
class CsvAppender {
 public:
  void open(const std::string& path, bool truncate) {
    path_ = path;
    out_.open(path, truncate ? std::ios::trunc | std::ios::binary : std::ios::app | std::ios::binary);
    if (!out_) throw std::runtime_error("cannot write " + path);
    out_.rdbuf()->pubsetbuf(nullptr, 0);  // unbuffered: each write below is one whole chunk
  }
  ~CsvAppender() { flush(); }
  bool enabled() const { return out_.is_open(); }
  void append(const std::string& row, bool urgent) {
    if (!enabled()) return;
    pending_ += row;
    auto now = std::chrono::steady_clock::now();
    if (urgent || pending_.size() > (1 << 16) || now - last_ > std::chrono::milliseconds(500)) flush();
  }
  void flush() {
    if (!enabled() || pending_.empty()) return;
    out_.write(pending_.data(), static_cast<std::streamsize>(pending_.size()));
    out_.flush();
    if (!out_) throw std::runtime_error("cannot write " + path_);
    pending_.clear();
    last_ = std::chrono::steady_clock::now();
  }

 private:
  std::string path_;
  std::ofstream out_;
  std::string pending_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

class Progress {
 public:
  Progress(bool enabled, std::size_t total) : enabled_(enabled), total_(total) {}
  void tick(std::size_t done) {
    if (!enabled_) return;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    double rate = elapsed > 0 ? done / elapsed : 0;
    double left = rate > 0 ? (total_ - done) / rate : 0;
    std::fprintf(stderr, "\r  %zu/%zu rows, %.1f rows/s, %.0f s left   ", done, total_, rate, left);
    if (done == total_) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  std::size_t total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

const std::vector<std::string>& sweep_columns() {
  static const std::vector<std::string> columns = {
      "engine", "strategy", "workers", "step_time_s", "throughput_samples_per_s", "scaling_efficiency",
      "busbw_Bps", "staleness_mean", "compute_s", "comm_s", "exposed_comm_s", "algbw_Bps", "wall_s"};
  return columns;
}

std::vector<int> parse_worker_list(const std::string& text) {
  std::vector<int> out;
  if (text.find(':') != std::string::npos) {
    auto parts = split(text, ':');
    if (parts.size() != 3 || parts[2].size() < 2 || (parts[2][0] != 'x' && parts[2][0] != '+'))
      parse_positive("", text);  // throws
    int start = parse_positive(parts[0], text), end = parse_positive(parts[1], text);
    int step = parse_positive(parts[2].substr(1), text);
    bool times = parts[2][0] == 'x';
    if (times && step < 2) parse_positive("", text);
    for (long n = start; n <= end; n = times ? n * step : n + step) out.push_back(static_cast<int>(n));
  } else {
    for (const auto& p : split(text, ',')) out.push_back(parse_positive(p, text));
  }
  if (out.empty()) parse_positive("", text);
  return out;
}

SweepSummary run_sweep(const core::Plan& base, const SweepOptions& options) {
  SweepSummary summary;
  std::set<std::string> done;
  if (options.resume) done = completed_rows(options.csv_path);
  bool fresh = !options.resume || !std::filesystem::exists(options.csv_path) ||
               std::filesystem::file_size(options.csv_path) == 0;
  CsvAppender csv;
  if (!options.csv_path.empty()) {
    csv.open(options.csv_path, fresh);
    if (fresh) csv.append(header_line() + "\n", true);
  }

  // The points still to run; their plans are made when they run (a sweep may have 100,000).
  struct Job {
    core::StrategyKind kind;
    int workers;
  };
  auto plan_for = [&](const Job& j) {
    core::Plan plan = base;
    plan.strategy.kind = j.kind;
    if (j.workers != plan.training.workers) plan.strategy.grid.reset();  // a grid fits one count
    plan.training.workers = j.workers;
    return plan;
  };
  auto key_of = [&](const Job& j) {
    return options.engine + "," + core::strategy_name(j.kind) + "," + std::to_string(j.workers);
  };
  std::vector<Job> jobs;
  for (auto kind : options.strategies)
    for (int n : options.workers) {
      Job job{kind, n};
      if (done.count(key_of(job))) {
        ++summary.skipped;
        continue;
      }
      try {
        core::validate_plan(plan_for(job));
      } catch (const core::InputError& e) {
        summary.errors.push_back(key_of(job) + ": " + e.what());
        continue;
      }
      jobs.push_back(job);
    }

  std::vector<std::optional<core::RunResult>> results(jobs.size());
  Progress progress(options.progress, jobs.size());
  std::size_t finished = 0;
  bool analytic = options.engine == "analytic";
  auto record = [&](std::size_t i, core::RunResult&& r) {
    csv.append(format_row(r), /*urgent=*/!analytic);
    results[i] = std::move(r);
    progress.tick(++finished);
  };
  auto fail = [&](std::size_t i, const std::string& why) {
    summary.errors.push_back(key_of(jobs[i]) + ": " + why);
    progress.tick(++finished);
  };

  if (analytic) {
    int max_devices = 1;
    for (const auto& j : jobs) max_devices = std::max(max_devices, core::devices_needed(plan_for(j)));
    std::optional<AnalyticModel> model;
    if (!jobs.empty()) model.emplace(base.cluster, max_devices);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      try {
        record(i, model->predict(plan_for(jobs[i])));
      } catch (const std::exception& e) {
        fail(i, e.what());
      }
    }
  } else {
    SimOptions sim_options;
    sim_options.fidelity = options.fidelity;
    std::map<pid_t, std::pair<SimChild, std::size_t>> running;
    std::size_t next = 0;
    int slots = std::max(1, options.jobs);
    while (next < jobs.size() || !running.empty()) {
      while (next < jobs.size() && static_cast<int>(running.size()) < slots) {
        SimChild child = start_simulation(plan_for(jobs[next]), sim_options);
        running[child.pid] = {child, next++};
      }
      int status = 0;
      pid_t pid = ::waitpid(-1, &status, 0);
      auto it = running.find(pid);
      if (it == running.end()) continue;
      auto [child, index] = it->second;
      running.erase(it);
      try {
        record(index, collect_simulation(child, status));
      } catch (const std::exception& e) {
        fail(index, e.what());
      }
    }
  }
  csv.flush();
  for (auto& r : results)
    if (r) summary.rows.push_back(std::move(*r));
  return summary;
}

}  // namespace scaleout::sim
