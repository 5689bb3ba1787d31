// Merging the CSVs of a sharded sweep (`sweep --shard K/N`) into the CSV the whole sweep writes.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace scaleout::sim {

// The shards do not make one whole grid: rows of another plan or grid, points missing or
// duplicated. The message names the files, shards and points. The CLI exits 1.
class MergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MergeSummary {
  std::size_t rows = 0;   // points in the grid, all written
  std::size_t files = 0;  // shard files read
  std::string grid_hash;  // the grid they share
};

// Reads every shard CSV, checks they share one grid_hash and shard count, that every point of the
// grid is there exactly once, and writes `out_path` (through a temporary file renamed into place)
// with the sweep's columns (no shard columns), the rows in grid order, each row's text as its
// shard wrote it. Throws core::InputError naming the file and line for a file that is not a
// shard's CSV or holds a broken row, MergeError for shards that do not make one grid, and
// std::runtime_error when `out_path` cannot be written.
MergeSummary merge_shards(const std::string& out_path, const std::vector<std::string>& shard_paths);

}  // namespace scaleout::sim
