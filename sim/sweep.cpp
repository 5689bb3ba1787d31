#include "sim/sweep.hpp"

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

#include "core/input_error.hpp"
#include "core/plan_loader.hpp"
#include "core/plan_writer.hpp"
#include "core/topology.hpp"
#include "sim/analytic.hpp"
#include "sim/sim_children.hpp"
#include "sim/simulator.hpp"

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

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

std::string format_row(const core::RunResult& r, const std::string& plan_hash) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s,%s,%d,%.9g,%.9g,%.6f,%.9g,%.6g,%.9g,%.9g,%.9g,%.9g,%.4g,%s\n",
                r.engine.c_str(), r.strategy.c_str(), r.workers, r.step_time_s,
                r.throughput_samples_per_s, r.scaling_efficiency, r.busbw_Bps, r.staleness.mean,
                r.phases.compute_s, r.phases.comm_s, r.phases.exposed_comm_s, r.algbw_Bps, r.wall_s,
                plan_hash.c_str());
  return buf;
}

std::string header_line() {
  std::string h;
  for (const auto& c : sweep_columns()) h += (h.empty() ? "" : ",") + c;
  return h;
}

// True when `fields` is a whole row of this sweep: every column, numbers where numbers belong.
bool valid_row(const std::vector<std::string>& fields) {
  if (fields.size() != sweep_columns().size()) return false;
  if (fields[0] != "sim" && fields[0] != "analytic") return false;
  if (!core::parse_strategy_kind(fields[1])) return false;
  for (std::size_t i = 2; i + 1 < fields.size(); ++i) {
    char* end = nullptr;
    std::strtod(fields[i].c_str(), &end);
    if (fields[i].empty() || *end != '\0') return false;
  }
  const std::string& hash = fields.back();  // 16 hex digits
  return hash.size() == 16 && hash.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Reads the rows already in `path` (resume). Keeps only whole, valid rows: a last line left
// incomplete by an interruption, or a row broken by another writer, is cut out of the file (and
// runs again), so that appending continues on a row boundary and every kept row is sound.
std::set<std::string> completed_rows(const std::string& path, const std::string& plan_hash) {
  std::set<std::string> done;
  std::ifstream in(path, std::ios::binary);
  if (!in) return done;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::size_t complete = text.rfind('\n');
  complete = complete == std::string::npos ? 0 : complete + 1;
  auto lines = split(text.substr(0, complete), '\n');
  if (lines.empty()) {
    std::filesystem::resize_file(path, 0);
    return done;
  }
  if (lines.front() != header_line())
    throw std::runtime_error("cannot resume " + path + ": its header is not this sweep's columns");
  std::string kept = lines.front() + "\n";
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto f = split(lines[i], ',');
    if (!valid_row(f) || !done.insert(f[0] + "," + f[1] + "," + f[2]).second)
      continue;  // broken or twice
    if (f.back() != plan_hash)
      throw std::runtime_error("cannot resume " + path +
                               ": its rows were predicted for another plan (plan_hash " + f.back() +
                               "; this sweep's is " + plan_hash +
                               "): write to another file, or remove it to start over");
    kept += lines[i] + "\n";
  }
  if (kept.size() != text.size()) {
    // Rewritten in place (the file is locked by this sweep): only whole rows remain.
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << kept;
    if (!out) throw std::runtime_error("cannot rewrite " + path);
  }
  return done;
}

// Holds an exclusive lock on the CSV for the sweep's lifetime: a second sweep writing the same
// file gets a clear error instead of interleaving rows with this one.
class CsvLock {
 public:
  explicit CsvLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open " + path + " for writing");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw std::runtime_error("another sweep is writing " + path +
                               " (it holds the file's lock); wait for it "
                               "to end or write to another file");
    }
  }
  ~CsvLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  CsvLock(const CsvLock&) = delete;
  CsvLock& operator=(const CsvLock&) = delete;

 private:
  int fd_ = -1;
};

// Appends complete rows to the CSV. Rows are buffered and written whole (never split), at the
// latest every half second, so a sweep killed at any moment leaves only complete rows behind.
class CsvAppender {
 public:
  void open(const std::string& path, bool truncate) {
    path_ = path;
    out_.open(path,
              truncate ? std::ios::trunc | std::ios::binary : std::ios::app | std::ios::binary);
    if (!out_) throw std::runtime_error("cannot write " + path);
    out_.rdbuf()->pubsetbuf(nullptr, 0);  // unbuffered: each write below is one whole chunk
  }
  ~CsvAppender() { flush(); }
  bool enabled() const { return out_.is_open(); }
  void append(const std::string& row, bool urgent) {
    if (!enabled()) return;
    pending_ += row;
    auto now = std::chrono::steady_clock::now();
    if (urgent || pending_.size() > (1 << 16) || now - last_ > std::chrono::milliseconds(500))
      flush();
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
                                                   "plan_hash"};
  return columns;
}

std::vector<int> parse_worker_list(const std::string& text, const std::string& field) {
  std::vector<int> out;
  auto number = [&](const std::string& part) { return parse_positive(part, text, field); };
  if (text.find(':') != std::string::npos) {
    auto parts = split(text, ':');
    if (parts.size() != 3 || parts[2].size() < 2 || (parts[2][0] != 'x' && parts[2][0] != '+'))
      number("");  // throws
    int start = number(parts[0]), end = number(parts[1]);
    int step = number(parts[2].substr(1));
    bool times = parts[2][0] == 'x';
    if (times && step < 2) number("");
    for (long n = start; n <= end; n = times ? n * step : n + step)
      out.push_back(static_cast<int>(n));
  } else {
    for (const auto& p : split(text, ',')) out.push_back(number(p));
  }
  if (out.empty()) number("");
  return out;
}

Engine parse_engine(const std::string& text, const std::string& field) {
  if (text == "sim") return Engine::kSim;
  if (text == "analytic") return Engine::kAnalytic;
  throw core::InputError("", 0, field, "unknown engine '" + text + "'; expected sim or analytic");
}

const char* engine_name(Engine engine) { return engine == Engine::kSim ? "sim" : "analytic"; }

namespace {

// One sweep's run: the points still to run, the CSV and the summary, filled as rows finish.
class SweepRun {
 public:
  SweepRun(const core::Plan& base, const SweepOptions& options)
      : base_(base), options_(options), hash_(sweep_plan_hash(base, options)) {}

  SweepSummary run() {
    open_csv();
    collect_jobs();
    results_.resize(jobs_.size());
    if (options_.engine == Engine::kAnalytic) {
      run_analytic();
    } else {
      run_simulations();
    }
    summary_.cancelled = cancelled();
    csv_.flush();
    for (auto& r : results_)
      if (r) summary_.rows.push_back(std::move(*r));
    return std::move(summary_);
  }

 private:
  // A point of the grid; its plan is made when it runs (a sweep may have 100,000).
  struct Job {
    core::StrategyKind kind;
    int workers;
  };

  core::Plan plan_for(const Job& j) const {
    core::Plan plan = base_;
    plan.strategy.kind = j.kind;
    if (j.workers != plan.training.workers) plan.strategy.grid.reset();  // a grid fits one count
    plan.training.workers = j.workers;
    return plan;
  }
  std::string key_of(const Job& j) const {
    return std::string(engine_name(options_.engine)) + "," + core::strategy_name(j.kind) + "," +
           std::to_string(j.workers);
  }
  bool cancelled() const { return options_.cancel && options_.cancel->load(); }

  void open_csv() {
    if (options_.csv_path.empty()) return;
    lock_ = std::make_unique<CsvLock>(options_.csv_path);
    if (options_.resume) done_ = completed_rows(options_.csv_path, hash_);
    bool fresh = !options_.resume || !std::filesystem::exists(options_.csv_path) ||
                 std::filesystem::file_size(options_.csv_path) == 0;
    csv_.open(options_.csv_path, fresh);
    if (fresh) csv_.append(header_line() + "\n", true);
  }

  // Every point not already in the CSV whose plan is valid; the others are counted or reported.
  void collect_jobs() {
    for (auto kind : options_.strategies)
      for (int n : options_.workers) {
        Job job{kind, n};
        if (done_.count(key_of(job))) {
          ++summary_.skipped;
          continue;
        }
        try {
          core::validate_plan(plan_for(job));
        } catch (const core::InputError& e) {
          summary_.errors.push_back(key_of(job) + ": " + e.what());
          continue;
        }
        jobs_.push_back(job);
      }
  }

  void tick() {
    if (options_.on_progress) options_.on_progress(++finished_, jobs_.size());
  }
  void record(std::size_t i, core::RunResult&& r) {
    csv_.append(format_row(r, hash_), /*urgent=*/options_.engine != Engine::kAnalytic);
    if (options_.on_row) options_.on_row(r);
    results_[i] = std::move(r);
    tick();
  }
  void fail(std::size_t i, const std::string& why) {
    summary_.errors.push_back(key_of(jobs_[i]) + ": " + why);
    tick();
  }

  // One model (one topology) for every point, built for the largest.
  void run_analytic() {
    if (jobs_.empty()) return;
    int max_devices = 1;
    for (const auto& j : jobs_)
      max_devices = std::max(max_devices, core::devices_needed(plan_for(j)));
    AnalyticModel model(base_.cluster, max_devices);
    for (std::size_t i = 0; i < jobs_.size() && !cancelled(); ++i) {
      try {
        record(i, model.predict(plan_for(jobs_[i])));
      } catch (const std::exception& e) {
        fail(i, e.what());
      }
    }
  }

  void run_simulations() {
    SimOptions sim_options;
    sim_options.fidelity = options_.fidelity;
    sim_options.max_events = options_.max_events;
    SimChildren children(options_.jobs);
    std::size_t next = 0;
    while ((next < jobs_.size() || !children.empty()) && !cancelled()) {
      for (; next < jobs_.size() && children.has_room(); ++next)
        children.start(plan_for(jobs_[next]), sim_options, next);
      auto ended = children.wait_one(options_.cancel);
      if (!ended) break;
      auto [child, index, status] = *ended;
      try {
        record(index, collect_simulation(child, status));
      } catch (const std::exception& e) {
        fail(index, e.what());
      }
    }
  }

  const core::Plan& base_;
  const SweepOptions& options_;
  std::string hash_;
  SweepSummary summary_;
  std::set<std::string> done_;
  std::unique_ptr<CsvLock> lock_;  // before csv_: released after the last row is written
  CsvAppender csv_;
  std::vector<Job> jobs_;
  std::vector<std::optional<core::RunResult>> results_;
  std::size_t finished_ = 0;
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
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a, 64 bits
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

SweepSummary run_sweep(const core::Plan& base, const SweepOptions& options) {
  return SweepRun(base, options).run();
}

}  // namespace scaleout::sim
