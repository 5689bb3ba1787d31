// Where actor stacks go, and the sizes refused before they start, by the limits that stop them.
#include "sim/actor_stacks.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "core/plan/input_error.hpp"

namespace scaleout::sim {
namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kStack = 256 << 10;

ProcessLimits defaults() {  // this kind of machine's: 65,530 mappings, no ulimit, 20 GiB free
  return {65530, 600, kUnlimited, kUnlimited, 20ULL << 30};
}

std::string refusal(std::int64_t actors, const ProcessLimits& limits) {
  try {
    plan_stacks(actors, kStack, limits);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ActorStacks, GuardPagesWhileTheMappingsLastThenTheHeap) {
  EXPECT_TRUE(plan_stacks(16384 + 1, kStack, defaults()).guard_pages);  // a 16,384-rank ring
  StackPlan big = plan_stacks(32768 + 1, kStack, defaults());
  EXPECT_FALSE(big.guard_pages);
  EXPECT_GT(big.address_space_needed, 32769ULL * kStack);
  EXPECT_FALSE(plan_stacks(2 * 65536 + 1, kStack, defaults()).guard_pages);
  ProcessLimits few = defaults();
  few.max_map_count = 4000;  // what SCALEOUT_MAX_MAP_COUNT=4000 gives
  EXPECT_FALSE(plan_stacks(1025, kStack, few).guard_pages);
}

TEST(ActorStacks, SizesBeyondTheLimitsAreRefusedNamingTheLimit) {
  ProcessLimits as = defaults();
  as.address_space = 4ULL << 30;  // ulimit -v 4194304
  std::string why = refusal(2 * 16384 + 1, as);
  EXPECT_NE(why.find("ulimit -v"), std::string::npos) << why;
  EXPECT_NE(why.find("32769 actors"), std::string::npos) << why;
  EXPECT_EQ(refusal(2 * 1024 + 1, as), "(accepted)");
  ProcessLimits data = defaults();
  data.data = 1ULL << 30;
  why = refusal(2 * 16384 + 1, data);
  EXPECT_NE(why.find("ulimit -d"), std::string::npos) << why;
  ProcessLimits memory = defaults();
  memory.memory_available = 512ULL << 20;
  why = refusal(2 * 65536 + 1, memory);
  EXPECT_NE(why.find("memory available"), std::string::npos) << why;
  ProcessLimits maps = defaults();
  maps.max_map_count = 1000;
  why = refusal(9, maps);
  EXPECT_NE(why.find("vm.max_map_count"), std::string::npos) << why;
}

}  // namespace
}  // namespace scaleout::sim
