// The fusion kinds (core/programs/fusion.hpp) from first principles: PyTorch DDP's fixed buckets
// with a small first one, Horovod's cycles (one bucket when a cycle outlasts backward, the
// per-layer buckets when cycles are tiny), and the compute figures (core/model/compute_rate.hpp).
#include "core/programs/fusion.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/model/compute_rate.hpp"
#include "core/model/step_model.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

using Kind = Training::Fusion::Kind;
constexpr double kMiB = 1024.0 * 1024;

// 25e6 fp32 elements (100 MB), no layers, overlap on, 64 samples of 24.6 GFLOP at 0.3 of 125
// TFLOP/s (42 ms of compute: 28 ms backward).
Plan plan_of(Kind kind) {
  Plan p = testing::collective_plan(testing::switch_cluster(1, 12.5e9, 2e-6), StrategyKind::kRing,
                                    4, 25e6);
  p.cluster.device.flops = 125e12;
  p.workload.flops_per_sample = 24.6e9;
  p.workload.efficiency = 0.3;
  p.training.batch_per_worker = 64;
  p.training.overlap = true;
  p.training.fusion.kind = kind;
  return p;
}

void add_resnet50_layers(Plan& p) {
  p.workload.parameters = 25.6e6;
  for (auto [params, share] : {std::pair{2.05e6, 0.001},
                               {14.96e6, 0.198},
                               {7.10e6, 0.357},
                               {1.22e6, 0.250},
                               {0.22e6, 0.165},
                               {0.0094e6, 0.029}})
    p.workload.layers.push_back({"layer", params, share});
}

void expect_tiles(const StepModel& m) {
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

TEST(Fusion, DdpMakesCapSizedBucketsAfterASmallFirstOne) {
  Plan p = plan_of(Kind::kDdp);  // 25 MiB buckets, 1 MiB first: PyTorch's defaults
  StepModel m = make_step_model(p);
  // 100e6 bytes: the first bucket takes 1 MiB, the remaining 98,951,424 bytes need
  // ceil(98951424 / 26214400) = 4 buckets: three of 25 MiB and one of 20,308,224 bytes.
  ASSERT_EQ(m.buckets.size(), 5u);
  EXPECT_EQ(count_buckets(p), 5);
  EXPECT_EQ(m.buckets[0].span.count * 4, 1 * kMiB);
  EXPECT_EQ(m.buckets[1].span.count * 4, 100e6 - 1 * kMiB - 3 * 25 * kMiB);
  for (int i = 2; i < 5; ++i) EXPECT_EQ(m.buckets[i].span.count * 4, 25 * kMiB);
  // The first bucket is ready with the first eighth of backward (the model lists no layers);
  // each later one when the slice holding its last element is done.
  EXPECT_DOUBLE_EQ(m.buckets[0].ready_fraction, 1.0 / kEvenSlices);
  for (const auto& b : m.buckets) {
    double last = static_cast<double>(b.span.end()) / m.elements;  // share of the gradient
    EXPECT_DOUBLE_EQ(b.ready_fraction, std::ceil(last * kEvenSlices - 1e-12) / kEvenSlices);
  }
  expect_tiles(m);
  EXPECT_EQ(m.cycle_s, 0);
}

TEST(Fusion, DdpBucketCapAndFirstBucketAreTheirs) {
  Plan p = plan_of(Kind::kDdp);
  p.training.fusion.bucket_cap = 10e6;
  p.training.fusion.first_bucket = 4e6;
  StepModel m = make_step_model(p);
  ASSERT_EQ(m.buckets.size(), 1u + 10u);  // 4 MB, then ceil(96 / 10) = 10
  EXPECT_EQ(m.buckets[0].span.count, 1'000'000);
  EXPECT_EQ(m.buckets[1].span.count, 1'500'000);  // the partial one: 6 MB
  EXPECT_EQ(m.buckets.back().span.count, 2'500'000);
  expect_tiles(m);
}

// Four Linear(1000, 1000) weights of 4,000,000 bytes, bucket_cap_mb=4 (4 MiB): PyTorch's DDP makes
// 3 buckets (the first closes at 1 MiB with one weight, the second takes two: 4 MB is under
// 4 MiB, 8 MB is not; the last holds the fourth). Split by bytes it would be 5.
TEST(Fusion, DdpKeepsListedTensorsWholeAsPyTorchBucketsThem) {
  Plan p = plan_of(Kind::kDdp);
  p.workload.parameters = 4e6;
  p.training.fusion.bucket_cap = 4 * kMiB;
  EXPECT_EQ(count_buckets(p), 5);  // no tensors listed: bytes
  p.workload.tensors = {1'000'000, 1'000'000, 1'000'000, 1'000'000};
  StepModel m = make_step_model(p);
  ASSERT_EQ(m.buckets.size(), 3u);
  EXPECT_EQ(count_buckets(p), 3);
  EXPECT_EQ(m.buckets[0].span.count, 1'000'000);
  EXPECT_EQ(m.buckets[1].span.count, 2'000'000);
  EXPECT_EQ(m.buckets[2].span.count, 1'000'000);
  // Each ready when backward has produced its last element (no layers: eighths of backward).
  EXPECT_DOUBLE_EQ(m.buckets[0].ready_fraction, 2.0 / kEvenSlices);
  EXPECT_DOUBLE_EQ(m.buckets[1].ready_fraction, 6.0 / kEvenSlices);
  EXPECT_DOUBLE_EQ(m.buckets.back().ready_fraction, 1.0);
  expect_tiles(m);
}

TEST(Fusion, DdpNeverSplitsATensorLargerThanTheCap) {
  Plan p = plan_of(Kind::kDdp);
  p.workload.parameters = 10'300'000;
  p.training.fusion.bucket_cap = 4e6;     // 1,000,000 elements
  p.training.fusion.first_bucket = 40e3;  // 10,000 elements
  // Small biases before and after big weights: the first bucket closes with the first weight.
  p.workload.tensors = {1000, 5'000'000, 1000, 1000, 998'000, 4'000'000, 299'000};
  StepModel m = make_step_model(p);
  ASSERT_EQ(m.buckets.size(), 4u);
  EXPECT_EQ(m.buckets[0].span.count, 5'001'000);
  EXPECT_EQ(m.buckets[1].span.count, 1'000'000);  // exactly the cap closes it
  EXPECT_EQ(m.buckets[2].span.count, 4'000'000);
  EXPECT_EQ(m.buckets[3].span.count, 299'000);  // what is left
  expect_tiles(m);
}

TEST(Fusion, HorovodCycleLongerThanBackwardLeavesOneBucketAfterIt) {
  Plan p = plan_of(Kind::kHorovod);
  add_resnet50_layers(p);
  p.training.fusion.cycle_time = 0.050;  // backward takes 28 ms
  double backward = 2.0 / 3 * 64 * 24.6e9 / 0.3 / 125e12;
  ASSERT_NEAR(nominal_backward_s(p), backward, 1e-15);
  StepModel m = make_step_model(p);
  ASSERT_EQ(m.buckets.size(), 1u);  // 102.4 MB under the 128 MiB threshold
  EXPECT_EQ(m.buckets[0].span.count, m.elements);
  // It may leave at the first cycle boundary: 50 ms into backward, 22 ms after it ends.
  EXPECT_DOUBLE_EQ(m.leaves_at(m.buckets[0].ready_fraction * backward), 0.050);
  p.training.fusion.threshold = 40e6;  // the one cycle's gradient in ceil(102.4 / 40) = 3
  EXPECT_EQ(make_step_model(p).buckets.size(), 3u);
}

TEST(Fusion, HorovodTinyCyclesApproachThePerLayerBuckets) {
  Plan p = plan_of(Kind::kHorovod);
  add_resnet50_layers(p);
  p.training.fusion.cycle_time = 1e-6;
  StepModel horovod = make_step_model(p);
  p.training.fusion.kind = Kind::kLegacy;
  p.training.fusion_buffer = p.training.fusion.threshold;
  StepModel layers = make_step_model(p);
  ASSERT_EQ(layers.buckets.size(), 6u);
  ASSERT_EQ(horovod.buckets.size(), layers.buckets.size());
  double backward = nominal_backward_s(p);
  for (std::size_t i = 0; i < layers.buckets.size(); ++i) {
    EXPECT_EQ(horovod.buckets[i].span, layers.buckets[i].span);
    double ready = layers.buckets[i].ready_fraction * backward;
    double leaves = horovod.leaves_at(horovod.buckets[i].ready_fraction * backward);
    EXPECT_GE(leaves, ready - 1e-15);
    EXPECT_LE(leaves, ready + 1e-6 + 1e-15);  // at most one cycle late
  }
  // A 5 ms cycle over 28 ms of backward: fc1000 (0.03 ms), layer4 (5.6), layer3 (15.6) and
  // layer2 (22.6) end in cycles of their own; layer1 (27.2) and conv1 (28) both in the sixth
  // (25-30 ms): five buckets.
  p.training.fusion.kind = Kind::kHorovod;
  p.training.fusion.cycle_time = 5e-3;
  EXPECT_EQ(make_step_model(p).buckets.size(), 5u);
  EXPECT_EQ(count_buckets(p), 5);
}

TEST(Fusion, WithoutOverlapEveryKindLeavesOneBucket) {
  for (Kind kind : {Kind::kLegacy, Kind::kHorovod, Kind::kDdp}) {
    Plan p = plan_of(kind);
    p.training.overlap = false;
    StepModel m = make_step_model(p);
    EXPECT_EQ(m.buckets.size(), 1u) << fusion_kind_name(kind);
    EXPECT_EQ(m.cycle_s, 0);
  }
}

TEST(Fusion, TooManyBucketsNameTheKindsSizeField) {
  Plan p = plan_of(Kind::kDdp);
  p.training.fusion.bucket_cap = 16;
  p.training.fusion.first_bucket = 16;
  try {
    make_step_model(p);
    ADD_FAILURE() << "6.25M buckets accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("training.fusion.bucket_cap"), std::string::npos);
  }
}

double compute_s(const Plan& p) {
  return make_step_model(p).compute_flops() / p.cluster.device.flops;
}

TEST(ComputeRate, MeasuredThroughputSetsComputeTimeExactly) {
  Plan p = plan_of(Kind::kLegacy);
  p.cluster.device.name = "V100";
  p.workload.measured_throughput = {{"P100", 220}, {"V100", 360}};
  EXPECT_NEAR(compute_s(p), 64.0 / 360, 1e-15);
  EXPECT_TRUE(compute_warnings(p).empty());
  p.cluster.device.name = "P100";
  EXPECT_NEAR(compute_s(p), 64.0 / 220, 1e-15);
}

TEST(ComputeRate, EfficiencyOverrideScalesComputeByTheRatio) {
  Plan p = plan_of(Kind::kLegacy);
  double model = compute_s(p);  // at the workload's 0.3
  EXPECT_NEAR(model, 64 * 24.6e9 / (0.3 * 125e12), 1e-15);
  p.training.efficiency = 0.6;
  EXPECT_NEAR(compute_s(p), model * 0.3 / 0.6, 1e-15);
}

TEST(ComputeRate, AMeasurementWinsOverTheOverrideAndSaysSo) {
  Plan p = plan_of(Kind::kLegacy);
  p.cluster.device.name = "V100";
  p.workload.measured_throughput = {{"V100", 360}};
  p.training.efficiency = 0.6;
  EXPECT_NEAR(compute_s(p), 64.0 / 360, 1e-15);
  auto w = compute_warnings(p);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("training.efficiency is not used"), std::string::npos);
}

TEST(ComputeRate, AnotherDevicesMeasurementIsNeverUsed) {
  Plan p = plan_of(Kind::kLegacy);
  double flops_based = compute_s(p);
  p.cluster.device.name = "V100";
  // Neither another device nor another spelling of this one.
  p.workload.measured_throughput = {{"P100", 220}, {"v100", 360}};
  EXPECT_DOUBLE_EQ(compute_s(p), flops_based);
  auto w = compute_warnings(p);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("no entry for device 'V100'"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("P100, v100"), std::string::npos) << w[0];
}

}  // namespace
}  // namespace scaleout::core
