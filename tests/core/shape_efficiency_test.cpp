// Compute by shape: the table is interpolated as documented, a flat table is the single
// efficiency exactly, narrow tensor shards run slower where the table says small products do, and
// malformed tables are refused with their line.
#include "core/model/shape_efficiency.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/model/model_parallel_work.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

// Lines 1-7: the inline cluster; 8-11: a transformer workload; the table's line is 11.
std::string plan_text(const std::string& table, int tensor = 1) {
  return std::string(testing::kInlineCluster) +
         "workload:\n"
         "  name: gpt\n"
         "  transformer: { layers: 8, hidden: 2048, heads: 16, sequence: 1024, vocabulary: 32000 "
         "}\n"
         "  efficiency: 0.5\n" +
         table + "parallelism: { tensor: " + std::to_string(tensor) +
         " }\nstrategy: { kind: ring }\ntraining: { workers: 16, global_batch: 16 }\n";
}

TEST(ShapeEfficiency, InterpolatesInLogSizeAndHoldsTheEnds) {
  Workload w;
  w.efficiency = 0.5;
  EXPECT_EQ(product_efficiency(w, 1e9), 0.5);  // no table: the single efficiency
  w.efficiency_by_size = {{1e9, 0.2}, {1e11, 0.6}};
  EXPECT_DOUBLE_EQ(product_efficiency(w, 1e8), 0.2);
  EXPECT_DOUBLE_EQ(product_efficiency(w, 1e9), 0.2);
  EXPECT_DOUBLE_EQ(product_efficiency(w, 1e10), 0.4);  // halfway in log(size)
  EXPECT_DOUBLE_EQ(product_efficiency(w, 1e11), 0.6);
  EXPECT_DOUBLE_EQ(product_efficiency(w, 1e13), 0.6);
}

TEST(ShapeEfficiency, AFlatTableIsTheSingleEfficiency) {
  Plan single = testing::load_text("shape-single", plan_text("", 4));
  Plan flat = testing::load_text(
      "shape-flat", plan_text("  efficiency_by_size: [[1MFLOP, 0.5], [1PFLOP, 0.5]]\n", 4));
  ModelParallelWork a = model_parallel_work(single), b = model_parallel_work(flat);
  EXPECT_NEAR(b.layer_forward_flops / a.layer_forward_flops, 1.0, 1e-12);
  EXPECT_NEAR(b.layer_backward_flops / a.layer_backward_flops, 1.0, 1e-12);
  EXPECT_NEAR(b.logit_forward_flops / a.logit_forward_flops, 1.0, 1e-12);
  // Written back and loaded again, the table is the same.
  Plan again = testing::load_text("shape-again", plan_to_yaml(flat));
  EXPECT_EQ(again.workload.efficiency_by_size, flat.workload.efficiency_by_size);
}

TEST(ShapeEfficiency, NarrowShardsRunSlowerWhereSmallProductsDo) {
  const std::string rising = "  efficiency_by_size: [[1GFLOP, 0.2], [1TFLOP, 0.7]]\n";
  auto per_layer = [&](const std::string& table, int tensor) {
    Plan p = testing::load_text("shape-" + std::to_string(tensor), plan_text(table, tensor));
    return model_parallel_work(p).layer_forward_flops;  // effective FLOPs on one device
  };
  // One efficiency: a tensor group of 8 does exactly an eighth each.
  EXPECT_NEAR(per_layer("", 1) / per_layer("", 8), 8.0, 1e-9);
  // Rising with size: each device's products are 8x smaller at tensor 8 and run less efficiently.
  EXPECT_LT(per_layer(rising, 1) / per_layer(rising, 8), 8.0);
  EXPECT_GT(per_layer(rising, 8), per_layer("", 8));  // below 0.5 at those sizes
}

class ShapeRefused : public ::testing::TestWithParam<testing::Refusal> {};

TEST_P(ShapeRefused, NamesFileLineAndWhy) {
  const testing::Refusal& r = GetParam();
  testing::expect_refused(std::string("shape-") + r.name, r.yaml, r.line, r.expect);
}

INSTANTIATE_TEST_SUITE_P(
    EfficiencyBySize, ShapeRefused,
    ::testing::Values(
        testing::Refusal{"descending",
                         plan_text("  efficiency_by_size: [[1TFLOP, 0.6], [1GFLOP, 0.3]]\n"), 12,
                         "sizes are positive and ascend"},
        testing::Refusal{"above_one", plan_text("  efficiency_by_size: [[1GFLOP, 1.5]]\n"), 12,
                         "an efficiency is in (0, 1]"},
        testing::Refusal{"not_pairs", plan_text("  efficiency_by_size: [1GFLOP, 0.5]\n"), 12,
                         "expected [[size, efficiency], ...]"},
        testing::Refusal{"not_a_transformer",
                         std::string(testing::kInlineCluster) +
                             "workload: { name: m, parameters: 10M, flops_per_sample: 1GFLOP,\n"
                             "  efficiency_by_size: [[1GFLOP, 0.5]] }\n"
                             "strategy: { kind: ring }\ntraining: { workers: 4 }\n",
                         9, "applies to a transformer workload"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace scaleout::core
