// Every strategy, run with real floats on threads, leaves every worker with the exact sum.
#include "core/programs/strategy.hpp"

#include <gtest/gtest.h>

#include "core/plan/input_error.hpp"
#include "tests/support/memory_fabric.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

struct Case {
  StrategyKind kind;
  int workers;
  int servers;
  int devices_per_node;
};

void expect_exact_sums(const Case& c, std::int64_t elements, std::vector<Span> buckets) {
  Plan plan = testing::collective_plan(testing::switch_cluster(c.devices_per_node, 1e9, 1e-6),
                                       c.kind, c.workers, static_cast<double>(elements));
  plan.strategy.ps_servers = std::max(1, c.servers);
  plan.strategy.chunk = 7 * 4;  // 7 elements: many pipeline chunks in the tree
  RankLayout layout;
  layout.workers = c.workers;
  layout.servers = c.servers;
  for (int r = 0; r < c.workers; ++r) layout.worker_node.push_back(r / c.devices_per_node);
  auto program = make_strategy(plan, layout);
  auto out = testing::run_in_memory(*program, c.workers, c.servers, elements, buckets);
  long wrong = 0;
  for (int r = 0; r < c.workers; ++r)
    for (std::int64_t i = 0; i < elements; ++i) {
      float expected = 0;
      for (int q = 0; q < c.workers; ++q) expected += testing::initial_value(q, i);
      if (out[r][i] != expected) ++wrong;
    }
  EXPECT_EQ(wrong, 0) << strategy_name(c.kind) << " with " << c.workers << " workers";
}

TEST(Strategies, AllReduceSumsAreExactForManyWorkerCounts) {
  for (StrategyKind kind :
       {StrategyKind::kRing, StrategyKind::kTorus2d, StrategyKind::kHalvingDoubling,
        StrategyKind::kTree, StrategyKind::kHierarchicalAllreduce,
        StrategyKind::kHierarchicalHalvingDoubling})
    for (int n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16})
      expect_exact_sums({kind, n, 0, 4}, 101, {{0, 101}});
}

TEST(Strategies, HierarchicalRingOnWholeNodes) {
  for (int per_node : {1, 2, 4})
    for (int nodes : {1, 2, 3, 5})
      expect_exact_sums({StrategyKind::kHierarchicalRing, per_node * nodes, 0, per_node}, 97,
                        {{0, 97}});
}

// The strategies that treat nodes apart, on nodes of 1 to 8 workers, whole or not (the last node
// then holds fewer): the chains and the trees across nodes take any shape.
TEST(Strategies, NodeAwareStrategiesOnWholeAndPartialNodes) {
  for (StrategyKind kind : {StrategyKind::kTree, StrategyKind::kHierarchicalAllreduce,
                            StrategyKind::kHierarchicalHalvingDoubling})
    for (int per_node : {1, 2, 3, 8})
      for (int n : {2, 5, 7, 8, 13, 16, 24, 33})
        expect_exact_sums({kind, n, 0, per_node}, 97, {{0, 97}});
  // Several buckets, and buckets smaller than the two halves' chunks.
  expect_exact_sums({StrategyKind::kTree, 12, 0, 4}, 60, {{0, 1}, {1, 2}, {3, 50}, {53, 7}});
  expect_exact_sums({StrategyKind::kHierarchicalAllreduce, 10, 0, 4}, 60, {{0, 1}, {1, 59}});
  expect_exact_sums({StrategyKind::kHierarchicalHalvingDoubling, 11, 0, 2}, 60, {{0, 3}, {3, 57}});
}

TEST(Strategies, ParameterServerWithOneToThreeShards) {
  for (int servers : {1, 2, 3})
    for (int n : {1, 2, 5, 8}) expect_exact_sums({StrategyKind::kPs, n, servers, 4}, 50, {{0, 50}});
}

TEST(Strategies, SeveralBucketsAndSegmentsSmallerThanTheRing) {
  // 5 elements over 8 ranks: some ring segments are empty.
  expect_exact_sums({StrategyKind::kRing, 8, 0, 4}, 5, {{0, 5}});
  expect_exact_sums({StrategyKind::kTorus2d, 8, 0, 4}, 60, {{0, 20}, {20, 33}, {53, 7}});
  expect_exact_sums({StrategyKind::kHalvingDoubling, 6, 0, 4}, 60, {{0, 30}, {30, 30}});
}

TEST(Strategies, HierarchicalRingRefusesRaggedNodes) {
  Plan plan = testing::collective_plan(testing::switch_cluster(4, 1e9, 1e-6),
                                       StrategyKind::kHierarchicalRing, 6, 10);
  RankLayout layout{6, 0, {0, 0, 0, 0, 1, 1}};
  EXPECT_THROW(make_strategy(plan, layout), InputError);
}

TEST(Strategies, TorusGridIsTheMostSquareUnlessGiven) {
  Strategy s;
  EXPECT_EQ(torus_grid(s, 64), (std::array<int, 2>{8, 8}));
  EXPECT_EQ(torus_grid(s, 128), (std::array<int, 2>{16, 8}));
  EXPECT_EQ(torus_grid(s, 7), (std::array<int, 2>{7, 1}));
  s.grid = std::array<int, 2>{4, 16};
  EXPECT_EQ(torus_grid(s, 64), (std::array<int, 2>{4, 16}));
}

TEST(Strategies, SplitPartCoversTheSpanWithoutGaps) {
  Span s{10, 23};
  std::int64_t next = 10;
  for (int i = 0; i < 5; ++i) {
    Span p = split_part(s, 5, i);
    EXPECT_EQ(p.begin, next);
    EXPECT_TRUE(p.count == 4 || p.count == 5);
    next = p.end();
  }
  EXPECT_EQ(next, s.end());
}

}  // namespace
}  // namespace scaleout::core
