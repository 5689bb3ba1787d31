// The sweep CSV: its columns, a row's text, reading back the rows of an interrupted sweep, the lock
// that keeps a second writer out and the appender that writes rows whole.
#pragma once

#include <chrono>
#include <cstddef>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/results/result.hpp"

namespace scaleout::sim {

// What a shard of a sweep adds to each row (the columns of shard_columns()): the hash of the plan
// and the grid, the row's index in the grid, the grid's size, and the shard as "K/N".
struct ShardStamp {
  std::string grid_hash;
  std::size_t point = 0;
  std::size_t points = 0;
  int index = 0;
  int count = 1;
};

// Where plan_hash is among sweep_columns(); the columns after it came later (fusion, buckets,
// grid, baseline_workers, baseline_efficiency; a model-parallel row's tokens_per_s,
// tokens_per_s_per_device, mfu, memory_bytes, bubble_s), appended so that the first ones keep
// their place.
inline constexpr std::size_t kPlanHashColumn = 13;

// The columns a shard's CSV has after sweep_columns().
const std::vector<std::string>& shard_columns();
// The header line (no newline): sweep_columns(), the varied fields (`sweep --vary`), and
// shard_columns() when `sharded`.
std::string sweep_header(bool sharded, const std::vector<std::string>& varied = {});
// The varied fields a header names between sweep_columns() and (when `sharded`) shard_columns();
// none when `header` is not a sweep's header of that kind.
std::optional<std::vector<std::string>> varied_columns(const std::string& header, bool sharded);
// "K/N".
std::string shard_name(int index, int count);

// One row, newline included: the result, the values of the varied fields, and (sharded sweeps
// only) the shard's columns from `stamp`.
std::string format_sweep_row(const core::RunResult& r, const std::string& plan_hash,
                             const ShardStamp* stamp = nullptr,
                             const std::vector<std::string>& varied_values = {});

// The parts of `text` between separators; a trailing empty part is dropped (lines of a file).
std::vector<std::string> split_fields(const std::string& text, char sep);
// A CSV row's fields, every one: "a,," is three (a row's trailing columns may be empty).
std::vector<std::string> split_row(const std::string& line);

// True when `fields` is a whole row: every column of the header (`varied` values, then shard
// columns when `sharded`), numbers where numbers belong, hashes of 16 hex digits.
bool valid_sweep_row(const std::vector<std::string>& fields, bool sharded, std::size_t varied = 0);

// The rows already in `path` (resume), as "engine,strategy,workers" keys (followed by the varied
// values, ",v1,v2", when `varied` names fields). Keeps only whole, valid
// rows: a last line left incomplete by an interruption, or a row broken by another writer, is cut
// out of the file (and runs again), so that appending continues on a row boundary. Throws
// std::runtime_error when the header is not this sweep's, or a row was written for another plan
// (`plan_hash`) or, for a shard (`stamp`), another grid or shard.
std::set<std::string> completed_rows(const std::string& path, const std::string& plan_hash,
                                     const ShardStamp* stamp,
                                     const std::vector<std::string>& varied = {});

// Holds an exclusive lock on the CSV for the sweep's lifetime: a second sweep writing the same
// file gets a clear error instead of interleaving rows with this one.
class CsvLock {
 public:
  explicit CsvLock(const std::string& path);
  ~CsvLock();
  CsvLock(const CsvLock&) = delete;
  CsvLock& operator=(const CsvLock&) = delete;

 private:
  int fd_ = -1;
};

// Appends complete rows to the CSV. Rows are buffered and written whole (never split), at the
// latest every half second, so a sweep killed at any moment leaves only complete rows behind.
class CsvAppender {
 public:
  void open(const std::string& path, bool truncate);
  ~CsvAppender() { flush(); }
  bool enabled() const { return out_.is_open(); }
  void append(const std::string& row, bool urgent);
  void flush();

 private:
  std::string path_;
  std::ofstream out_;
  std::string pending_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace scaleout::sim
