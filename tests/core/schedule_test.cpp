// The NCCL call schedule (what `run --backend cuda --dry-run` prints and the NCCL fabric issues)
// holds exactly the sends and receives each strategy makes on the memory fabric.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "core/plan/input_error.hpp"
#include "core/programs/strategy.hpp"
#include "exec/schedule_fabric.hpp"
#include "tests/support/memory_fabric.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

// NCCL's grouping and its dry run live with the backends (exec/), not in core.
using namespace ::scaleout::exec;

// Operations per (direction, peer), in posting order: what NCCL matches between two ranks.
using PerPair =
    std::map<std::pair<bool, int>, std::vector<std::tuple<std::int64_t, std::int64_t, Combine>>>;

PerPair per_pair(const std::vector<PointOp>& ops) {
  PerPair out;
  for (const PointOp& op : ops)
    out[{op.send, op.peer}].emplace_back(op.span.begin, op.span.count, op.combine);
  return out;
}

struct Case {
  StrategyKind kind;
  int workers;
  int servers = 0;
  int devices_per_node = 4;
  std::optional<std::array<int, 2>> grid;
};

std::string name(const Case& c) {
  std::string s = std::string(strategy_name(c.kind)) + " N=" + std::to_string(c.workers);
  if (c.servers) s += " servers=" + std::to_string(c.servers);
  if (c.grid) s += " grid " + std::to_string((*c.grid)[0]) + "x" + std::to_string((*c.grid)[1]);
  return s + " per node " + std::to_string(c.devices_per_node);
}

void expect_schedule_matches_memory_fabric(const Case& c) {
  const std::int64_t elements = 101;
  const std::vector<Span> buckets{{0, 60}, {60, 41}};
  Plan plan = testing::collective_plan(testing::switch_cluster(c.devices_per_node, 1e9, 1e-6),
                                       c.kind, c.workers, static_cast<double>(elements));
  plan.strategy.ps_servers = std::max(1, c.servers);
  plan.strategy.chunk = 7 * 4;  // 7 elements: several pipeline chunks
  plan.strategy.grid = c.grid;
  RankLayout layout{c.workers, c.servers, {}};
  for (int r = 0; r < c.workers; ++r) layout.worker_node.push_back(r / c.devices_per_node);
  auto program = make_strategy(plan, layout);
  auto recorded = testing::record_in_memory(*program, c.workers, c.servers, elements, buckets);

  int size = c.workers + c.servers;
  ASSERT_EQ(recorded.size(), static_cast<std::size_t>(size)) << name(c);
  for (int r = 0; r < size; ++r) {
    ScheduleFabric fabric(r, size);
    for (const Span& b : buckets) {
      program->run(fabric, b);
      fabric.end_bucket();
    }
    std::vector<PointOp> scheduled;
    for (const OpGroup& g : fabric.groups()) {
      EXPECT_FALSE(g.empty()) << name(c);
      scheduled.insert(scheduled.end(), g.begin(), g.end());
    }
    EXPECT_EQ(per_pair(scheduled), per_pair(recorded[r])) << name(c) << ", rank " << r;
  }
}

TEST(NcclSchedule, CollectivesMatchTheMemoryFabricForTwoToSixteenRanks) {
  for (StrategyKind kind : {StrategyKind::kRing, StrategyKind::kTorus2d,
                            StrategyKind::kHalvingDoubling, StrategyKind::kTree})
    for (int n = 2; n <= 16; ++n) expect_schedule_matches_memory_fabric({kind, n});
}

TEST(NcclSchedule, TorusOnEveryGrid) {
  for (int n = 4; n <= 16; ++n)
    for (int x = 2; x <= n / 2; ++x)
      if (n % x == 0)
        expect_schedule_matches_memory_fabric(
            {StrategyKind::kTorus2d, n, 0, 4, std::array<int, 2>{x, n / x}});
}

TEST(NcclSchedule, HierarchicalRingOnWholeNodes) {
  for (int per_node : {1, 2, 4})
    for (int n = 2; n <= 16; ++n)
      if (n % per_node == 0)
        expect_schedule_matches_memory_fabric({StrategyKind::kHierarchicalRing, n, 0, per_node});
}

TEST(NcclSchedule, SynchronousParameterServers) {
  for (int servers : {1, 2, 3})
    for (int n = 2; n <= 16; ++n)
      expect_schedule_matches_memory_fabric({StrategyKind::kPs, n, servers});
}

TEST(NcclSchedule, GroupsAreWhatWasPostedSinceTheLastIssue) {
  GroupPlanner planner;
  Fabric::Handle a = planner.post({true, 1, {0, 4}, Combine::kReplace});
  Fabric::Handle b = planner.post({false, 2, {4, 4}, Combine::kAdd});
  EXPECT_FALSE(planner.issued(a));
  EXPECT_EQ(planner.take_group().size(), 2u);
  EXPECT_TRUE(planner.issued(b));
  EXPECT_TRUE(planner.take_group().empty());
  Fabric::Handle c = planner.post({true, 1, {8, 4}, Combine::kReplace});
  EXPECT_EQ(c, 2);
  EXPECT_THROW(planner.clear(), std::logic_error);  // c never issued
  EXPECT_EQ(planner.take_group(), (std::vector<PointOp>{{true, 1, {8, 4}, Combine::kReplace}}));
  planner.clear();
  EXPECT_FALSE(planner.has_unissued());
  EXPECT_EQ(describe({false, 3, {1024, 1024}, Combine::kAdd}),
            "ncclRecv(peer 3, [1024, 2048) add)");
  EXPECT_EQ(describe({true, 1, {0, 1024}, Combine::kReplace}), "ncclSend(peer 1, [0, 1024))");
}

TEST(NcclSchedule, EachExchangeStepIsOneGroupAndEmptyWaitsIssueNothing) {
  ScheduleFabric fabric(0, 4);
  fabric.exchange_steps(1, 3, 3, [](int i) {
    Span send = i == 1 ? Span{0, 0} : Span{i * 10, 10};  // step 1 only receives
    return ExchangeStep{send, Span{i * 10 + 5, 5}, Combine::kAdd};
  });
  fabric.wait_all({});
  ASSERT_EQ(fabric.groups().size(), 3u);
  EXPECT_EQ(fabric.groups()[0].size(), 2u);
  EXPECT_EQ(fabric.groups()[1], (OpGroup{{false, 3, {15, 5}, Combine::kAdd}}));
  EXPECT_EQ(fabric.groups()[2].size(), 2u);
  Fabric::Handle a = fabric.post_send(2, {0, 4});
  Fabric::Handle b = fabric.post_recv(2, {4, 4}, Combine::kReplace);
  fabric.wait_all({a, b});
  EXPECT_EQ(fabric.groups().back(),
            (OpGroup{{true, 2, {0, 4}, Combine::kReplace}, {false, 2, {4, 4}, Combine::kReplace}}));
  fabric.end_bucket();
}

TEST(NcclSchedule, AdditionsShareOneAlignedScratchBuffer) {
  std::vector<PointOp> group{{false, 1, {0, 10}, Combine::kAdd},
                             {true, 2, {0, 10}, Combine::kReplace},
                             {false, 3, {10, 5}, Combine::kReplace},
                             {false, 4, {20, 3}, Combine::kAdd}};
  std::int64_t total = 0;
  EXPECT_EQ(scratch_offsets(group, 8, total), (std::vector<std::int64_t>{0, -1, -1, 16}));
  EXPECT_EQ(total, 24);
  EXPECT_EQ(scratch_offsets({{true, 1, {0, 10}, Combine::kReplace}}, 8, total),
            (std::vector<std::int64_t>{-1}));
  EXPECT_EQ(total, 0);
}

TEST(NcclSchedule, OneTrainingStepOfAPlanGroupsEveryRank) {
  Plan plan =
      testing::collective_plan(testing::switch_cluster(4, 1e9, 1e-6), StrategyKind::kRing, 4, 1000);
  auto ranks = schedule_plan(plan);
  ASSERT_EQ(ranks.size(), 4u);
  std::string text = format_schedule(ranks);
  for (int r = 0; r < 4; ++r) {
    // A ring of 4: 3 reduce-scatter and 3 all-gather steps at least (more with chunks).
    EXPECT_GE(ranks[r].size(), 6u);
    EXPECT_NE(text.find("rank " + std::to_string(r) + " group 0: "), std::string::npos);
  }
}

TEST(NcclSchedule, RefusesMessageDrivenParameterServers) {
  Plan plan =
      testing::collective_plan(testing::switch_cluster(4, 1e9, 1e-6), StrategyKind::kPs, 2, 100);
  plan.strategy.ps_mode = PsMode::kAsync;
  EXPECT_THROW(schedule_plan(plan), InputError);
}

}  // namespace
}  // namespace scaleout::core
