// Simulations sized beyond the process's limits: the heap's stacks give the same answer as guarded
// ones, and a size that cannot run is refused before it starts (exit 2, naming the limit).
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace {

using scaleout::testing::Output;
using scaleout::testing::shell;

const std::string kSimulate = std::string(SCALEOUT_BINARY) + " simulate " +
                              scaleout::testing::source_path("experiments/quickstart.yaml");

TEST(LimitsCli, StacksFromTheHeapGiveTheSameAnswer) {
  Output guarded = shell(kSimulate + " --workers 1024 --json");
  // 1,025 actors do not fit in 3,000 mappings with guard pages: the stacks come from the heap.
  Output heap = shell("SCALEOUT_MAX_MAP_COUNT=3000 " + kSimulate + " --workers 1024 --json");
  ASSERT_EQ(guarded.code, 0) << guarded.text;
  ASSERT_EQ(heap.code, 0) << heap.text;
  auto a = nlohmann::json::parse(guarded.text), b = nlohmann::json::parse(heap.text);
  EXPECT_EQ(a["step_time_s"], b["step_time_s"]);
  EXPECT_EQ(a["steps"], b["steps"]);
}

TEST(LimitsCli, ASizeBeyondTheAddressSpaceLimitIsRefusedBeforeItStarts) {
  auto t0 = std::chrono::steady_clock::now();
  Output o = shell("prlimit --as=3221225472 " + kSimulate + " --workers 16384");  // 3 GiB
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("ulimit -v"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("Failed to protect stack"), std::string::npos) << o.text;
  EXPECT_LT(wall, 5.0) << "refused after " << wall << " s: it should not have started";
  o = shell("SCALEOUT_MAX_MAP_COUNT=100 " + kSimulate + " --workers 8");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("vm.max_map_count"), std::string::npos) << o.text;
}

}  // namespace
