#include "core/step_model.hpp"

#include <gtest/gtest.h>

#include "core/plan_loader.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

void expect_buckets_tile_gradient(const StepModel& m) {
  std::int64_t next = 0;
  double ready = 0;
  for (const auto& b : m.buckets) {
    EXPECT_EQ(b.span.begin, next);
    EXPECT_GT(b.span.count, 0);
    EXPECT_GE(b.ready_fraction, ready);
    ready = b.ready_fraction;
    next = b.span.end();
  }
  EXPECT_EQ(next, m.elements);
  EXPECT_DOUBLE_EQ(m.buckets.back().ready_fraction, 1.0);
}

TEST(StepModel, ComputeSplitsOneThirdForward) {
  Plan p =
      testing::collective_plan(testing::switch_cluster(1, 1e9, 0), StrategyKind::kRing, 2, 1000);
  p.workload.flops_per_sample = 3e9;
  p.workload.efficiency = 0.5;
  p.training.batch_per_worker = 4;
  StepModel m = make_step_model(p);
  EXPECT_DOUBLE_EQ(m.forward_flops, 8e9);
  EXPECT_DOUBLE_EQ(m.backward_flops, 16e9);
  ASSERT_EQ(m.buckets.size(), 1u);
  EXPECT_EQ(m.buckets[0].span.count, 1000);
}

TEST(StepModel, OverlapWithoutLayersMakesEvenFusionBuckets) {
  Plan p =
      testing::collective_plan(testing::switch_cluster(1, 1e9, 0), StrategyKind::kRing, 2, 1000);
  p.training.overlap = true;
  p.training.fusion_buffer = 1000;  // 250 fp32 elements
  StepModel m = make_step_model(p);
  ASSERT_EQ(m.buckets.size(), 4u);
  EXPECT_DOUBLE_EQ(m.buckets[0].ready_fraction, 0.25);
  expect_buckets_tile_gradient(m);
}

TEST(StepModel, OverlapWithLayersFollowsTheBackwardOrder) {
  Plan p = load_plan(testing::source_path("experiments/quickstart.yaml"));
  p.training.fusion_buffer = 16.0 * 1024 * 1024;
  StepModel m = make_step_model(p);
  ASSERT_GE(m.buckets.size(), 2u);
  // fc1000 (2.05M) and layer4 (14.96M) close the first bucket after about 20% of backward.
  EXPECT_NEAR(m.buckets[0].ready_fraction, 0.199, 1e-3);
  expect_buckets_tile_gradient(m);
}

}  // namespace
}  // namespace scaleout::core
