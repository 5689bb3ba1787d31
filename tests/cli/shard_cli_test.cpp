// Sharded sweeps from the command line: --shard K/N and auto (Slurm's array variables), merge's
// exit codes, and the sbatch script of --emit-slurm run task by task.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace {

namespace fs = std::filesystem;
using scaleout::testing::Output;
using scaleout::testing::shell;
using scaleout::testing::source_path;

const std::string kBinary = SCALEOUT_BINARY;
const std::string kSweep = kBinary + " sweep " + source_path("experiments/quickstart.yaml") +
                           " --engine analytic --workers 8:256:x2 --strategies ring,ps -q";

fs::path dir() {
  fs::path d = fs::temp_directory_path() / "scaleout-shard-cli";
  fs::create_directories(d);
  return d;
}

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The CSV without its wall_s column (the time each point took to compute).
std::string without_wall(const fs::path& p) {
  std::stringstream in(text_of(p)), out;
  for (std::string line; std::getline(in, line);) {
    std::stringstream fields(line);
    int i = 0;
    for (std::string f; std::getline(fields, f, ','); ++i)
      if (i != 12) out << f << ",";
    out << "\n";
  }
  return out.str();
}

TEST(ShardCli, BadShardValuesAreInputErrors) {
  std::string out = (dir() / "bad.csv").string();
  for (const char* bad : {"4/4", "x", "1/0", "-1/3", "1/", "3", "1/2/3", "99999999999/3"}) {
    Output o =
        shell("env -u SLURM_ARRAY_TASK_ID " + kSweep + " -o " + out + " --shard '" + bad + "'");
    EXPECT_EQ(o.code, 2) << bad << ": " << o.text;
    EXPECT_NE(o.text.find("--shard"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("K/N"), std::string::npos) << bad << ": " << o.text;
  }
  Output o = shell("env -u SLURM_ARRAY_TASK_ID " + kSweep + " -o " + out + " --shard auto");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("SLURM_ARRAY_TASK_ID is not set"), std::string::npos) << o.text;
  o = shell("SLURM_ARRAY_TASK_ID=7 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=4 " + kSweep +
            " -o " + out + " --shard auto");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("task 7 is not one of 4"), std::string::npos) << o.text;
  o = shell(kSweep + " -o " + out + " --shard 0/2 --emit-slurm 2");
  EXPECT_EQ(o.code, 2) << o.text;
}

TEST(ShardCli, AutoShardsFromSlurmMergeToTheWholeSweep) {
  fs::path whole = dir() / "whole.csv", merged = dir() / "merged.csv";
  ASSERT_EQ(shell(kSweep + " -o " + whole.string()).code, 0);
  std::string shards;
  for (int id = 3; id < 6; ++id) {  // an array numbered from 3
    fs::path shard = dir() / ("auto-" + std::to_string(id) + ".csv");
    Output o = shell("SLURM_ARRAY_TASK_ID=" + std::to_string(id) +
                     " SLURM_ARRAY_TASK_MIN=3 SLURM_ARRAY_TASK_COUNT=3 " + kSweep + " -o " +
                     shard.string() + " --shard auto");
    ASSERT_EQ(o.code, 0) << o.text;
    shards += " " + shard.string();
  }
  Output o = shell(kBinary + " merge " + merged.string() + shards);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(without_wall(merged), without_wall(whole));
  fs::remove(merged);
  o = shell(kBinary + " merge " + merged.string() + " " + (dir() / "auto-3.csv").string() + " " +
            (dir() / "auto-5.csv").string());
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_NE(o.text.find("shard 1/3 is missing"), std::string::npos) << o.text;
  EXPECT_FALSE(fs::exists(merged));
  o = shell(kBinary + " merge " + merged.string() + " " + (dir() / "nowhere.csv").string());
  EXPECT_EQ(o.code, 2) << o.text;
}

// The script, run as Slurm would run each array task; `sbatch` here stands in for the scheduler
// by keeping the merge job's script, which the test then runs as the dependent job.
TEST(ShardCli, EmittedSlurmScriptRunsTheShardsAndTheMerge) {
  fs::path d = dir() / "slurm";
  fs::remove_all(d);
  fs::create_directories(d / "bin");
  std::ofstream(d / "bin" / "sbatch") << "#!/bin/sh\necho \"$@\" > " << (d / "merge.args").string()
                                      << "\ncat > " << (d / "merge.sh").string() << "\n";
  fs::permissions(d / "bin" / "sbatch", fs::perms::owner_all);
  fs::path whole = d / "whole.csv", out = d / "out.csv", script = d / "sweep.sbatch";
  ASSERT_EQ(shell(kSweep + " -o " + whole.string()).code, 0);
  Output o = shell(kSweep + " -o " + out.string() + " --emit-slurm 3 > " + script.string());
  ASSERT_EQ(o.code, 0) << o.text;
  std::string text = text_of(script);
  EXPECT_NE(text.find("#SBATCH --array=0-2"), std::string::npos) << text;
  for (int id = 0; id < 3; ++id) {
    o = shell("cd " + d.string() + " && PATH=" + (d / "bin").string() +
              ":$PATH SLURM_ARRAY_JOB_ID=41 SLURM_ARRAY_TASK_ID=" + std::to_string(id) +
              " SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=3 bash " + script.string());
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_TRUE(fs::exists(d / ("out.shard-" + std::to_string(id) + ".csv")));
  }
  EXPECT_NE(text_of(d / "merge.args").find("--dependency=afterok:41"), std::string::npos);
  EXPECT_FALSE(fs::exists(out));
  o = shell("bash " + (d / "merge.sh").string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(without_wall(out), without_wall(whole));
}

}  // namespace
