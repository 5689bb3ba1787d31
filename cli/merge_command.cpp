#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/plan_args.hpp"
#include "explore/sweep_merge.hpp"

namespace scaleout::cli {

Action add_merge_command(CLI::App& app) {
  auto output = std::make_shared<std::string>();
  auto shards = std::make_shared<std::vector<std::string>>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Merge the CSVs of a sharded sweep (sweep --shard K/N) into the sweep's CSV, in grid order.\n"
      "Refuses (exit 1) shards of another plan or grid, and missing or duplicated points.\n"
      "Example: scaleout merge sweep.csv sweep.shard-0.csv sweep.shard-1.csv sweep.shard-2.csv");
  cmd->add_option("output", *output, "the merged CSV (written whole, then renamed into place)")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("shards", *shards, "the shards' CSVs")->required();
  cmd->add_flag("-q,--quiet", *quiet, "print nothing when it worked");
  return [=]() {
    sim::MergeSummary s = sim::merge_shards(*output, *shards);
    if (!*quiet)
      std::printf("%zu rows from %zu shard files written to %s\n", s.rows, s.files,
                  output->c_str());
    return 0;
  };
}

}  // namespace scaleout::cli
