// The fusion kinds on both engines: what DDP's buckets buy a ResNet-50 fp16 step (against one
// bucket after backward, a bound derived by hand), Horovod's cycle wait, and the property every
// prediction keeps: a bigger gradient never takes less time, for each kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "analytic/analytic.hpp"
#include "core/model/step_model.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

using Kind = core::Training::Fusion::Kind;
constexpr double kNicBps = 12.5e9, kLatency = 2e-6;
constexpr int kWorkers = 16;

// ResNet-50 (its layers, 25.6M parameters) in fp16 on one-device nodes behind a switch: 64
// samples of 24.6 GFLOP at 0.3 of 125 TFLOP/s (14 ms forward, 28 ms backward), overlap on.
core::Plan resnet50_fp16(Kind kind, core::StrategyKind strategy = core::StrategyKind::kRing,
                         double scale = 1) {
  core::Cluster c = testing::switch_cluster(1, kNicBps, kLatency);
  c.device.flops = 125e12;
  core::Plan p = testing::collective_plan(c, strategy, kWorkers, 25.6e6 * scale);
  p.workload.flops_per_sample = 24.6e9;
  p.workload.efficiency = 0.3;
  p.training.batch_per_worker = 64;
  p.training.gradient_precision = "fp16";
  p.training.gradient_bytes_per_element = 2;
  p.training.overlap = true;
  p.training.fusion.kind = kind;
  for (auto [params, share] : {std::pair{2.05e6, 0.001},
                               {14.96e6, 0.198},
                               {7.10e6, 0.357},
                               {1.22e6, 0.250},
                               {0.22e6, 0.165},
                               {0.0094e6, 0.029}})
    p.workload.layers.push_back({"layer", params * scale, share});
  return p;
}

// A ring all-reduce of `bytes` on N one-device nodes behind a switch (alpha-beta, each message
// through two links): 2(N-1) steps, each two latencies and bytes/N at the NIC's rate.
double ring_s(double bytes) {
  return 2.0 * (kWorkers - 1) * (2 * kLatency + bytes / kWorkers / kNicBps);
}

using Engine = std::function<core::RunResult(const core::Plan&)>;
std::vector<std::pair<std::string, Engine>> both_engines() {
  return {{"analytic", [](const core::Plan& p) { return predict_analytic(p); }},
          {"sim", [](const core::Plan& p) { return simulate(p); }}};
}

TEST(FusionEngines, DdpBucketsHideHalfOfResnet50sExchange) {
  // One bucket after backward exposes the whole exchange, ring_s(51.2 MB) = 7.8 ms. DDP's 25 MiB
  // buckets (1 MiB first, counted from the end: [1 MiB, 23.9 MB, 25 MiB]) leave with fc1000,
  // inside layer4 (5.6 ms into backward) and at the end: the first two are through long before
  // backward ends, so only the last is exposed, ring_s(25 MiB) = 4.05 ms.
  core::Plan ddp = resnet50_fp16(Kind::kDdp);
  ASSERT_EQ(core::make_step_model(ddp).buckets.size(), 3u);
  core::Plan one = ddp;
  one.training.overlap = false;
  double compute = 64 * 24.6e9 / 0.3 / 125e12;
  for (const auto& [name, run] : both_engines()) {
    core::RunResult d = run(ddp), o = run(one);
    EXPECT_NEAR(o.phases.exposed_comm_s, ring_s(51.2e6), 0.02 * ring_s(51.2e6)) << name;
    EXPECT_NEAR(d.phases.exposed_comm_s, ring_s(25 * 1024 * 1024), 0.02 * ring_s(25 * 1024 * 1024))
        << name;
    EXPECT_NEAR(d.step_time_s, compute + ring_s(25 * 1024 * 1024), 0.002 * d.step_time_s) << name;
    EXPECT_LT(d.phases.exposed_comm_s, 0.55 * o.phases.exposed_comm_s) << name;
    EXPECT_EQ(d.buckets, 3) << name;
    EXPECT_EQ(d.fusion, "ddp") << name;
  }
}

TEST(FusionEngines, HorovodWaitsForTheCycleBoundary) {
  // A 50 ms cycle outlasts the 28 ms backward: one bucket, leaving 50 ms after backward starts.
  core::Plan p = resnet50_fp16(Kind::kHorovod);
  p.training.fusion.cycle_time = 0.050;
  double forward = 64 * 24.6e9 / 0.3 / 125e12 / 3;
  for (const auto& [name, run] : both_engines()) {
    core::RunResult r = run(p);
    EXPECT_NEAR(r.step_time_s, forward + 0.050 + ring_s(51.2e6), 0.002 * r.step_time_s) << name;
    EXPECT_EQ(r.buckets, 1) << name;
  }
  // Tiny cycles: the per-layer buckets of the legacy fusion with the same size limit.
  p.training.fusion.cycle_time = 1e-6;
  core::Plan layers = p;
  layers.training.fusion.kind = Kind::kLegacy;
  layers.training.fusion_buffer = p.training.fusion.threshold;
  for (const auto& [name, run] : both_engines())
    EXPECT_NEAR(run(p).step_time_s, run(layers).step_time_s, 1e-5) << name;
}

struct Variant {
  std::string name;
  std::function<void(core::Plan&)> set;
};

std::vector<Variant> fusion_kinds() {
  return {{"ddp", [](core::Plan&) {}},
          {"ddp 4MiB", [](core::Plan& p) { p.training.fusion.bucket_cap = 4.0 * 1024 * 1024; }},
          {"horovod 5ms 16MiB",
           [](core::Plan& p) {
             p.training.fusion.kind = Kind::kHorovod;
             p.training.fusion.cycle_time = 5e-3;
             p.training.fusion.threshold = 16.0 * 1024 * 1024;
           }},
          {"horovod 1ms", [](core::Plan& p) { p.training.fusion.kind = Kind::kHorovod; }}};
}

// The property test's case for each fusion kind: scaled layers and (no layers) a growing
// gradient, on both engines, for the collective strategies.
TEST(FusionEngines, ABiggerGradientNeverTakesLessTimeForEachKind) {
  using S = core::StrategyKind;
  for (const auto& [engine, run] : both_engines())
    for (const auto& kind : fusion_kinds())
      for (S s : {S::kRing, S::kTorus2d, S::kTree, S::kHierarchicalRing, S::kHalvingDoubling}) {
        if (engine == "sim" && (s == S::kHierarchicalRing || s == S::kHalvingDoubling))
          continue;  // the simulator's share of the suite's time: three strategies
        int n = engine == "sim" ? 6 : 40;
        for (bool layered : {true, false}) {
          double last = 0;
          for (int i = 0; i <= n; ++i) {
            double scale = 0.5 + i * 2.0 / n;
            core::Plan p = resnet50_fp16(Kind::kDdp, s, scale);
            if (!layered) p.workload.layers.clear();
            kind.set(p);
            double t = run(p).step_time_s;
            EXPECT_GE(t, last * (1 - 1e-9))
                << engine << " " << kind.name << " " << core::strategy_name(s)
                << (layered ? " layered" : " even") << " scale " << scale;
            last = t;
          }
        }
      }
}

}  // namespace
}  // namespace scaleout::sim
