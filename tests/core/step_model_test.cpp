#include "core/model/step_model.hpp"

#include <gtest/gtest.h>

#include <map>

#include "core/plan/plan_loader.hpp"
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

TEST(StepModel, OverlapWithoutLayersMakesEvenSlicesSplitByTheFusionBuffer) {
  Plan p =
      testing::collective_plan(testing::switch_cluster(1, 1e9, 0), StrategyKind::kRing, 2, 1000);
  p.training.overlap = true;
  p.training.fusion_buffer = 1000;  // 250 fp32 elements: each slice of 125 is one bucket
  StepModel m = make_step_model(p);
  ASSERT_EQ(m.buckets.size(), static_cast<std::size_t>(kEvenSlices));
  EXPECT_DOUBLE_EQ(m.buckets[0].ready_fraction, 1.0 / kEvenSlices);
  expect_buckets_tile_gradient(m);
  p.training.fusion_buffer = 400;  // 100 elements: each slice leaves in two pieces, at once
  m = make_step_model(p);
  ASSERT_EQ(m.buckets.size(), 2u * kEvenSlices);
  EXPECT_DOUBLE_EQ(m.buckets[1].ready_fraction, 1.0 / kEvenSlices);
  EXPECT_EQ(m.buckets[0].span.count + m.buckets[1].span.count, 125);
  expect_buckets_tile_gradient(m);
}

TEST(StepModel, OverlapWithLayersFollowsTheBackwardOrder) {
  Plan p = load_plan(testing::source_path("experiments/quickstart.yaml"));
  p.training.fusion_buffer = 16.0 * 1024 * 1024;
  StepModel m = make_step_model(p);
  // fc1000 (2.05M elements, 8.2 MB) leaves after 0.1% of backward, alone: nothing ready waits for
  // a later layer; layer4 (14.96M, 59.8 MB) in four pieces after 19.9%.
  ASSERT_GE(m.buckets.size(), 6u);
  EXPECT_EQ(m.buckets[0].span.count, 2050000);
  EXPECT_NEAR(m.buckets[0].ready_fraction, 0.001, 1e-4);
  for (int i = 1; i <= 4; ++i) EXPECT_NEAR(m.buckets[i].ready_fraction, 0.199, 1e-3);
  EXPECT_GT(m.buckets[5].ready_fraction, 0.5);
  expect_buckets_tile_gradient(m);
}

// Where buckets become ready does not depend on the gradient's size: a bigger gradient has the same
// ready points, each with at least as many elements (the 66.8 MB vs 67.2 MB case of issue 9).
TEST(StepModel, ReadyPointsDoNotMoveWithTheGradientSize) {
  Plan p =
      testing::collective_plan(testing::switch_cluster(1, 1e9, 0), StrategyKind::kRing, 2, 1000);
  p.training.overlap = true;
  p.training.fusion_buffer = 64.0 * 1024 * 1024;
  auto by_point = [&](double parameters) {
    p.workload.parameters = parameters;
    std::map<double, std::int64_t> elements;
    for (const auto& b : make_step_model(p).buckets) elements[b.ready_fraction] += b.span.count;
    return elements;
  };
  auto small = by_point(16.7e6), big = by_point(16.8e6);
  ASSERT_EQ(small.size(), big.size());
  for (const auto& [fraction, count] : small) EXPECT_GE(big[fraction], count) << fraction;
}

}  // namespace
}  // namespace scaleout::core
