// The expert all-to-all's sizes: the FP8 dispatch's element, the deduplicated exchange's share of
// distinct tokens a node (worked out by hand from the draws), the plan fields that name them and
// their refusals.
#include "core/model/token_exchange.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/model/model_parallel_work.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

// The inline cluster (8 devices a node), a ring and `parallelism`, with `moe`'s experts in a small
// transformer (2 layers, hidden 64, 32 tokens a sequence).
std::string moe_plan(const std::string& moe, const std::string& parallelism, int workers) {
  return std::string(testing::kInlineCluster) +
         "workload:\n  name: m\n  efficiency: 0.5\n"
         "  transformer: { layers: 2, hidden: 64, heads: 4, sequence: 32, vocabulary: 100, "
         "moe: { " +
         moe + " } }\nstrategy: { kind: ring }\nparallelism: { " + parallelism +
         " }\ntraining: { workers: " + std::to_string(workers) +
         ", global_batch: " + std::to_string(workers) + " }\n";
}

MoeShape experts(int count, int top_k, int groups = 0, int group_top_k = 0) {
  MoeShape m;
  m.experts = count, m.top_k = top_k, m.groups = groups, m.group_top_k = group_top_k;
  return m;
}

// 8 experts, 4 on each of 2 nodes, 2 a token: a token misses a node with chance C(4,2) / C(8,2)
// = 6 / 28, so reaches it with 22 / 28 and sends it 2 / 2 = 1 copy on average: share 11 / 14.
TEST(TokenExchange, AShareIsTheNodesDistinctTokensOverItsCopies) {
  EXPECT_NEAR(node_distinct_share(experts(8, 2), 2), 11.0 / 14, 1e-12);
  EXPECT_EQ(node_distinct_share(experts(8, 2), 1), 1);  // one node: nothing crosses
  // One expert a token: every copy is a distinct token.
  EXPECT_NEAR(node_distinct_share(experts(8, 1), 4), 1, 1e-12);
}

// Group-limited routing. Whole groups on a node: 4 groups of 2 experts, 2 a node, a token's 2
// among the 4 experts of 2 groups drawn of 4. It draws j of the node's groups with chance 1/6,
// 4/6, 1/6 (j = 0, 1, 2); with one the node holds 2 of its 4 open experts (missed with chance
// C(2,2) / C(4,2) = 1/6), with two all 4. Reached: 4/6 x 5/6 + 1/6 = 13/18; copies a node 2/2.
// A group over whole nodes: 2 groups of 4 experts over 4 nodes, 1 group a token: the node's group
// with chance 1/2, then 2 of its 4 experts miss the node's 2 with chance 1/6: reached 5/12 over
// 2 / 4 copies: share 5/6.
TEST(TokenExchange, RoutingGroupsNarrowTheNodesATokenReaches) {
  EXPECT_NEAR(node_distinct_share(experts(8, 2, 4, 2), 2), 13.0 / 18, 1e-12);
  EXPECT_NEAR(node_distinct_share(experts(8, 2, 2, 1), 4), 5.0 / 6, 1e-12);
  EXPECT_THROW(node_distinct_share(experts(12, 2, 3, 1), 2), std::invalid_argument);
}

// DeepSeek-V3: 256 experts in 8 groups, a node each of 8, 8 a token among 4 groups' 128. A node's
// group is drawn with chance 1/2; then the token's 8 miss its 32 with chance
// (96 x 95 x ... x 89) / (128 x 127 x ... x 121) = 0.0927473: share 0.5 x 0.9072527 x 8 / 8.
TEST(TokenExchange, DeepSeekV3SendsAToken45PercentOfItsCopies) {
  double misses = 1;
  for (int i = 0; i < 8; ++i) misses *= (96.0 - i) / (128.0 - i);
  EXPECT_NEAR(misses, 0.0927473, 1e-7);
  EXPECT_NEAR(node_distinct_share(experts(256, 8, 8, 4), 8), 0.5 * (1 - misses), 1e-12);
}

// A micro-batch of 32 tokens, 2 copies each of hidden 64: 4,096 elements each way; to the experts
// in FP8 with a 4-byte scale per 128 (1.03125 B), back at 2 B.
TEST(TokenExchange, Fp8DispatchSendsAByteAndAScaleAnElement) {
  Plan plan = testing::load_text(
      "fp8-dispatch",
      moe_plan("experts: 4, top_k: 2", "expert: 4, expert_dispatch_precision: fp8", 4));
  EXPECT_TRUE(plan.parallelism->expert_dispatch_fp8);
  ModelParallelWork w = model_parallel_work(plan);
  EXPECT_DOUBLE_EQ(w.dispatch_bytes, 4096 * 1.03125);
  EXPECT_DOUBLE_EQ(w.combine_bytes, 4096 * 2.0);
}

// The routing groups and the exchange's fields load, save and load back.
TEST(TokenExchange, APlanNamesItsGroupsAndExchangeAndSavesThem) {
  Plan plan = testing::load_text(
      "groups-saved",
      moe_plan("experts: 8, top_k: 2, groups: 4, group_top_k: 2",
               "expert: 8, expert_alltoall: deduplicated, expert_dispatch_precision: fp8", 8));
  testing::TempDir dir("groups-saved");
  std::string saved = (dir.path() / "saved.yaml").string();
  save_plan(plan, saved);
  Plan again = load_plan(saved);
  const MoeShape& m = *again.workload.transformer->moe;
  EXPECT_EQ(m.groups, 4);
  EXPECT_EQ(m.group_top_k, 2);
  EXPECT_EQ(again.parallelism->expert_alltoall, ExpertAllToAll::kDeduplicated);
  EXPECT_TRUE(again.parallelism->expert_dispatch_fp8);
}

// Routing groups that do not divide the experts, a group_top_k without groups or leaving fewer
// experts open than top_k, FP8 dispatch without experts, and groups that the expert group's nodes
// cannot hold whole or in whole nodes: each refused naming its field.
TEST(TokenExchange, RefusesGroupsAndExchangesItCannotModel) {
  std::string parallel = "expert: 8, expert_alltoall: deduplicated";
  testing::expect_refused("groups-divide",
                          moe_plan("experts: 8, groups: 3, group_top_k: 1", parallel, 8), 0,
                          "3 does not divide the 8 experts");
  testing::expect_refused("groups-missing", moe_plan("experts: 8, group_top_k: 1", parallel, 8), 0,
                          "group_top_k': needs moe.groups");
  testing::expect_refused("groups-narrow",
                          moe_plan("experts: 8, top_k: 4, groups: 4, group_top_k: 1", parallel, 8),
                          0, "leaves 2 experts open to a token, fewer than its top_k 4");
  testing::expect_refused("fp8-alone", moe_plan("experts: 8", "expert_dispatch_precision: fp8", 8),
                          0, "expert_dispatch_precision': fp8 sends the experts' tokens");
  // 48 experts over an expert group of 16 ranks on 2 nodes of 8, in 3 groups of 16.
  testing::expect_refused("groups-nodes",
                          moe_plan("experts: 48, top_k: 2, groups: 3, group_top_k: 1",
                                   "expert: 16, expert_alltoall: deduplicated", 16),
                          0, "3 routing groups neither divide nor are divided by the 2 nodes");
}

}  // namespace
}  // namespace scaleout::core
