// Predictions stay what they were: sweeps of bundled and test plans, run with this build, give the
// numbers the build before the training loop moved into core gave (tests/data/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/command.hpp"

namespace scaleout {
namespace {

using Table = std::vector<std::vector<std::string>>;

Table read_csv(const std::string& path) {
  Table rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

void expect_same_predictions(const std::string& plan, const std::string& args,
                             const std::string& before) {
  std::string out = ::testing::TempDir() + "after-" + before;
  std::string data = std::string(SCALEOUT_SOURCE_DIR) + "/tests/data/";
  auto run = testing::shell(std::string(SCALEOUT_BINARY) + " sweep " + plan + " " + args +
                            " -q -o " + out);
  ASSERT_EQ(run.code, 0) << run.text;
  Table expected = read_csv(data + before), got = read_csv(out);
  ASSERT_EQ(got.size(), expected.size()) << before;
  ASSERT_FALSE(expected.empty());
  // Rows come in the order simulations finish: match them by (engine, strategy, workers).
  std::sort(expected.begin() + 1, expected.end());
  std::sort(got.begin() + 1, got.end());
  const auto& header = expected[0];
  for (std::size_t r = 1; r < expected.size(); ++r)
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (header[c] == "wall_s" || header[c] == "plan_hash") continue;  // not predictions
      SCOPED_TRACE(before + " " + expected[r][1] + " " + expected[r][2] + " " + header[c]);
      if (c < 3) {
        EXPECT_EQ(got[r][c], expected[r][c]);
        continue;
      }
      double e = std::stod(expected[r][c]), g = std::stod(got[r][c]);
      EXPECT_LE(std::fabs(g - e), 2e-9 * std::fabs(e) + 1e-15)
          << "before " << expected[r][c] << ", now " << got[r][c];
    }
}

const char* kAllStrategies =
    "--strategies ring,torus2d,ps,hierarchical_ring,halving_doubling,tree -j2";

TEST(Predictions, QuickstartSweepIsUnchanged) {
  expect_same_predictions(std::string(SCALEOUT_SOURCE_DIR) + "/experiments/quickstart.yaml",
                          std::string("--workers 8:256:x2 ") + kAllStrategies,
                          "before-quickstart.csv");
}

TEST(Predictions, WithoutOverlapInHalfPrecisionUnchanged) {
  expect_same_predictions(
      std::string(SCALEOUT_SOURCE_DIR) + "/tests/data/quickstart-no-overlap-fp16.yaml",
      std::string("--workers 8:64:x2 ") + kAllStrategies, "before-quickstart-no-overlap-fp16.csv");
}

TEST(Predictions, AsynchronousAndBackupWorkerPsUnchanged) {
  expect_same_predictions(std::string(SCALEOUT_SOURCE_DIR) + "/tests/data/async-ps-stragglers.yaml",
                          "--workers 8,16", "before-async-ps-stragglers.csv");
  expect_same_predictions(std::string(SCALEOUT_SOURCE_DIR) + "/tests/data/backup-workers.yaml",
                          "--workers 16", "before-backup-workers.csv");
}

}  // namespace
}  // namespace scaleout
