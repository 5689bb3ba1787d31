#include "explore/sweep_merge.hpp"

#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "core/files/atomic_file.hpp"
#include "core/plan/input_error.hpp"
#include "explore/sweep.hpp"
#include "explore/sweep_csv.hpp"

namespace scaleout::sim {

namespace {

struct Row {
  std::string text;   // the sweep's columns, as the shard wrote them
  std::string where;  // file:line
  std::string name;   // "ring, 64 workers"
};

// What every shard of one sweep shares, taken from the first row read.
struct Grid {
  std::string grid_hash, plan_hash, file;
  std::vector<std::string> varied;  // the fields `sweep --vary` varied, as the header names them
  std::size_t points = 0;
  int count = 0;
};

std::string listed(const std::vector<std::string>& items, std::size_t most = 8) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < most; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > most) out += " and " + std::to_string(items.size() - most) + " more";
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::InputError(path, 0, "SHARD", "cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Refuses a row whose plan, grid or shard count is not the first row's (MergeError).
void check_same_grid(Grid& grid, const std::vector<std::string>& f, const std::string& path) {
  std::size_t base = sweep_columns().size() + grid.varied.size();  // the shard columns
  int count = std::stoi(split_fields(f[base + 3], '/')[1]);
  if (grid.file.empty()) {
    grid.grid_hash = f[base];
    grid.plan_hash = f[kPlanHashColumn];
    grid.file = path;
    grid.points = std::stoul(f[base + 2]);
    grid.count = count;
    return;
  }
  if (f[base] == grid.grid_hash && count == grid.count) return;
  if (f[base] != grid.grid_hash)
    throw MergeError(
        path + " is a shard of another sweep than " + grid.file + " (" +
        (f[kPlanHashColumn] != grid.plan_hash
             ? "another plan: plan_hash " + f[kPlanHashColumn] + " and " + grid.plan_hash
             : "the same plan over another grid") +
        "; grid_hash " + f[base] + " and " + grid.grid_hash +
        "): merge the shards of one sweep only");
  throw MergeError(path + " is one of " + std::to_string(count) + " shards, " + grid.file +
                   " one of " + std::to_string(grid.count) +
                   ": the shards of one sweep are split the same way");
}

// Reads one shard's rows into `rows` (by point). InputError for a file that is not a shard's.
void read_shard(const std::string& path, Grid& grid,
                std::map<std::size_t, std::vector<Row>>& rows) {
  std::string text = read_text(path);
  auto lines = split_fields(text, '\n');
  auto varied = lines.empty() ? std::nullopt : varied_columns(lines[0], true);
  if (!varied)
    throw core::InputError(
        path, 1, "header",
        lines.size() && varied_columns(lines[0], false)
            ? "an unsharded sweep's CSV: merge takes the CSVs of "
              "`scaleout sweep --shard K/N`"
            : "not the CSV of `scaleout sweep --shard K/N` (columns " + sweep_header(true) + ")");
  if (!grid.file.empty() && *varied != grid.varied)
    throw MergeError(path + " varies other fields than " + grid.file +
                     ": merge the shards of one sweep only");
  grid.varied = *varied;
  if (!text.empty() && text.back() != '\n')
    throw core::InputError(path, static_cast<int>(lines.size()), "row",
                           "the last row is cut short (the shard was interrupted): run the "
                           "shard again with --resume");
  std::size_t base = sweep_columns().size() + grid.varied.size();  // the shard columns
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto f = split_row(lines[i]);
    std::string where = path + ":" + std::to_string(i + 1);
    if (!valid_sweep_row(f, true, grid.varied.size()))
      throw core::InputError(path, static_cast<int>(i + 1), "row",
                             "not a whole row of a shard's CSV (" + sweep_header(true) + ")");
    check_same_grid(grid, f, path);
    std::size_t point = std::stoul(f[base + 1]);
    auto shard = split_fields(f[base + 3], '/');
    if (std::stoul(f[base + 2]) != grid.points || point % grid.count != std::stoul(shard[0]))
      throw core::InputError(path, static_cast<int>(i + 1), "point",
                             "point " + f[base + 1] + " of " + f[base + 2] +
                                 " does not belong to shard " + f[base + 3]);
    std::string row;
    for (std::size_t c = 0; c < base; ++c) row += (c ? "," : "") + f[c];
    rows[point].push_back({row + "\n", where, f[1] + ", " + f[2] + " workers"});
  }
}

// Points present twice, and points missing, grouped by shard. Empty when the grid is whole.
std::string grid_problems(const Grid& grid, const std::map<std::size_t, std::vector<Row>>& rows) {
  std::vector<std::string> twice;
  for (const auto& [point, copies] : rows) {
    if (copies.size() < 2) continue;
    std::vector<std::string> at;
    for (const auto& c : copies) at.push_back(c.where);
    twice.push_back("point " + std::to_string(point) + " (" + copies[0].name + ") in " +
                    listed(at));
  }
  std::map<int, std::vector<std::string>> missing;  // shard -> points
  std::map<int, std::size_t> shard_points;
  for (std::size_t p = 0; p < grid.points; ++p) {
    int shard = static_cast<int>(p % grid.count);
    ++shard_points[shard];
    if (!rows.count(p)) missing[shard].push_back(std::to_string(p));
  }
  std::string why;
  if (!twice.empty()) why += "duplicated: " + listed(twice, 4) + ". ";
  for (const auto& [shard, points] : missing)
    why += "shard " + shard_name(shard, grid.count) +
           (points.size() == shard_points[shard]
                ? " is missing (none of its " + std::to_string(points.size()) +
                      " points is in the files given: its CSV was not given, or it did not run). "
                : ": points " + listed(points) +
                      " are missing (interrupted? run the shard again with --resume). ");
  return why;
}

}  // namespace

MergeSummary merge_shards(const std::string& out_path,
                          const std::vector<std::string>& shard_paths) {
  if (shard_paths.empty()) throw core::InputError("", 0, "SHARD", "no shard CSV given");
  Grid grid;
  std::map<std::size_t, std::vector<Row>> rows;
  for (const auto& path : shard_paths) read_shard(path, grid, rows);
  if (grid.file.empty())
    throw MergeError("the shards given hold no rows (" + listed(shard_paths) + ")");
  std::string why = grid_problems(grid, rows);
  if (!why.empty())
    throw MergeError("the shards do not make the whole grid of " + std::to_string(grid.points) +
                     " points (grid_hash " + grid.grid_hash +
                     "): " + why.substr(0, why.size() - 1));
  std::string text = sweep_header(false, grid.varied) + "\n";
  for (const auto& [point, copies] : rows) text += copies.front().text;
  core::write_file_atomic(out_path, text);
  return {grid.points, shard_paths.size(), grid.grid_hash};
}

}  // namespace scaleout::sim
