#include "explore/sweep_csv.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "core/plan/plan.hpp"
#include "explore/sweep.hpp"

namespace scaleout::sim {

namespace {

bool is_hash(const std::string& text) {  // 16 hex digits
  return text.size() == 16 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool is_number(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

bool is_count(const std::string& text) {
  return !text.empty() && text.size() < 10 &&
         text.find_first_not_of("0123456789") == std::string::npos;
}

// The shard columns of a row: grid_hash, point, points, shard ("K/N" with K < N, point < points).
bool valid_stamp(const std::vector<std::string>& f, std::size_t first) {
  if (!is_hash(f[first]) || !is_count(f[first + 1]) || !is_count(f[first + 2])) return false;
  if (std::stoul(f[first + 1]) >= std::stoul(f[first + 2])) return false;
  auto parts = split_fields(f[first + 3], '/');
  return parts.size() == 2 && is_count(parts[0]) && is_count(parts[1]) &&
         std::stoul(parts[0]) < std::stoul(parts[1]);
}

// tokens_per_s, tokens_per_s_per_device, mfu, memory_bytes, bubble_s: a model-parallel row's;
// empty for a data-parallel one (a number there would mean nothing).
std::string transformer_fields(const core::RunResult& r) {
  if (!r.model_parallel) return ",,,,,";
  const core::ModelParallelOutcome& m = *r.model_parallel;
  char buf[160];
  std::snprintf(buf, sizeof buf, ",%.9g,%.9g,%.6f,%.9g,%.9g", m.tokens_per_s,
                m.tokens_per_s / std::max(1, r.workers), m.mfu, m.memory.total, m.bubble_s);
  return buf;
}

// goodput and the time to train (expected, P10, P50, P90) of a plan with `reliability:`; empty
// without one.
std::string reliability_fields(const core::RunResult& r) {
  if (!r.reliability) return ",,,,,";
  const core::ReliabilityOutcome& o = *r.reliability;
  char buf[160];
  std::snprintf(buf, sizeof buf, ",%.6f,%.9g,%.9g,%.9g,%.9g", o.goodput, o.time_to_train_s,
                o.time_to_train_p10_s, o.time_to_train_p50_s, o.time_to_train_p90_s);
  return buf;
}

bool empty_or_number(const std::string& text) { return text.empty() || is_number(text); }

}  // namespace

const std::vector<std::string>& shard_columns() {
  static const std::vector<std::string> columns = {"grid_hash", "point", "points", "shard"};
  return columns;
}

std::string sweep_header(bool sharded, const std::vector<std::string>& varied) {
  std::string h;
  for (const auto& c : sweep_columns()) h += (h.empty() ? "" : ",") + c;
  for (const auto& c : varied) h += "," + c;
  if (sharded)
    for (const auto& c : shard_columns()) h += "," + c;
  return h;
}

std::optional<std::vector<std::string>> varied_columns(const std::string& header, bool sharded) {
  auto names = split_fields(header, ',');
  const auto& base = sweep_columns();
  std::size_t tail = sharded ? shard_columns().size() : 0;
  if (names.size() < base.size() + tail) return std::nullopt;
  if (!std::equal(base.begin(), base.end(), names.begin())) return std::nullopt;
  if (sharded && !std::equal(shard_columns().begin(), shard_columns().end(), names.end() - tail))
    return std::nullopt;
  std::vector<std::string> varied(names.begin() + base.size(), names.end() - tail);
  for (const auto& v : varied)
    if (v.empty()) return std::nullopt;
  return varied;
}

std::string shard_name(int index, int count) {
  return std::to_string(index) + "/" + std::to_string(count);
}

std::string format_sweep_row(const core::RunResult& r, const std::string& plan_hash,
                             const ShardStamp* stamp,
                             const std::vector<std::string>& varied_values) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s,%s,%d,%.9g,%.9g,%.6f,%.9g,%.6g,%.9g,%.9g,%.9g,%.9g,%.4g,%s,%s,%.9g,%s,%d,%.6f",
                r.engine.c_str(), r.strategy.c_str(), r.workers, r.step_time_s,
                r.throughput_samples_per_s, r.scaling_efficiency, r.busbw_Bps, r.staleness.mean,
                r.phases.compute_s, r.phases.comm_s, r.phases.exposed_comm_s, r.algbw_Bps, r.wall_s,
                plan_hash.c_str(), r.fusion.c_str(), r.buckets,
                r.grid.empty() ? "-" : r.grid.c_str(), r.baseline_workers, r.baseline_efficiency);
  std::string row = buf + transformer_fields(r) + reliability_fields(r);
  for (const auto& v : varied_values) row += "," + v;
  if (stamp)
    row += "," + stamp->grid_hash + "," + std::to_string(stamp->point) + "," +
           std::to_string(stamp->points) + "," + shard_name(stamp->index, stamp->count);
  return row + "\n";
}

std::vector<std::string> split_fields(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> fields(1);
  for (char c : line) {
    if (c == ',')
      fields.emplace_back();
    else
      fields.back() += c;
  }
  return fields;
}

bool valid_sweep_row(const std::vector<std::string>& fields, bool sharded, std::size_t varied) {
  std::size_t base = sweep_columns().size();
  if (fields.size() != base + varied + (sharded ? shard_columns().size() : 0)) return false;
  for (std::size_t i = base; i < base + varied; ++i)
    if (fields[i].empty()) return false;
  if (fields[0] != "sim" && fields[0] != "analytic") return false;
  if (!core::parse_strategy_kind(fields[1])) return false;
  for (std::size_t i = 2; i < kPlanHashColumn; ++i)
    if (!is_number(fields[i])) return false;
  if (!is_hash(fields[kPlanHashColumn])) return false;
  const std::string* extra = &fields[kPlanHashColumn + 1];  // fusion, buckets, grid, baseline
  if (extra[0] != "legacy" && extra[0] != "horovod" && extra[0] != "ddp") return false;
  if (!is_number(extra[1]) || extra[2].empty() || !is_count(extra[3]) || !is_number(extra[4]))
    return false;
  // The transformer's columns, then the reliability ones.
  if (!std::all_of(extra + 5, extra + 15, empty_or_number)) return false;
  return !sharded || valid_stamp(fields, base + varied);
}

std::set<std::string> completed_rows(const std::string& path, const std::string& plan_hash,
                                     const ShardStamp* stamp,
                                     const std::vector<std::string>& varied) {
  std::set<std::string> done;
  std::ifstream in(path, std::ios::binary);
  if (!in) return done;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::size_t complete = text.rfind('\n');
  complete = complete == std::string::npos ? 0 : complete + 1;
  auto lines = split_fields(text.substr(0, complete), '\n');
  if (lines.empty()) {
    std::filesystem::resize_file(path, 0);
    return done;
  }
  if (lines.front() != sweep_header(stamp != nullptr, varied))
    throw std::runtime_error("cannot resume " + path + ": its header is not this sweep's columns" +
                             (stamp ? " (a shard's CSV has the shard columns)" : ""));
  std::string kept = lines.front() + "\n";
  std::size_t base = sweep_columns().size(), stamp_at = base + varied.size();
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto f = split_row(lines[i]);
    if (!valid_sweep_row(f, stamp != nullptr, varied.size())) continue;  // broken
    std::string key = f[0] + "," + f[1] + "," + f[2];
    for (std::size_t c = base; c < stamp_at; ++c) key += "," + f[c];
    if (!done.insert(key).second) continue;  // twice
    if (f[kPlanHashColumn] != plan_hash)
      throw std::runtime_error("cannot resume " + path +
                               ": its rows were predicted for another plan (plan_hash " +
                               f[kPlanHashColumn] + "; this sweep's is " + plan_hash +
                               "): write to another file, or remove it to start over");
    if (stamp && (f[stamp_at] != stamp->grid_hash ||
                  f[stamp_at + 3] != shard_name(stamp->index, stamp->count)))
      throw std::runtime_error("cannot resume " + path + ": it holds shard " + f[stamp_at + 3] +
                               " of grid " + f[stamp_at] + "; this is shard " +
                               shard_name(stamp->index, stamp->count) + " of grid " +
                               stamp->grid_hash + ": write to another file");
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

CsvLock::CsvLock(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open " + path + " for writing");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw std::runtime_error("another sweep is writing " + path +
                             " (it holds the file's lock); wait for it "
                             "to end or write to another file");
  }
}

CsvLock::~CsvLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

void CsvAppender::open(const std::string& path, bool truncate) {
  path_ = path;
  out_.open(path, truncate ? std::ios::trunc | std::ios::binary : std::ios::app | std::ios::binary);
  if (!out_) throw std::runtime_error("cannot write " + path);
  out_.rdbuf()->pubsetbuf(nullptr, 0);  // unbuffered: each write below is one whole chunk
}

void CsvAppender::append(const std::string& row, bool urgent) {
  if (!enabled()) return;
  pending_ += row;
  auto now = std::chrono::steady_clock::now();
  if (urgent || pending_.size() > (1 << 16) || now - last_ > std::chrono::milliseconds(500))
    flush();
}

void CsvAppender::flush() {
  if (!enabled() || pending_.empty()) return;
  out_.write(pending_.data(), static_cast<std::streamsize>(pending_.size()));
  out_.flush();
  if (!out_) throw std::runtime_error("cannot write " + path_);
  pending_.clear();
  last_ = std::chrono::steady_clock::now();
}

}  // namespace scaleout::sim
