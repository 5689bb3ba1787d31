// The network model's latency factor (`network_model: { name, latency_factor }`): applied by the
// simulator (SimGrid's network/latency-factor) and the closed forms alike.
#include <gtest/gtest.h>

#include <cmath>

#include "analytic/analytic.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

core::Plan ring_plan(const std::string& model, std::optional<double> factor, int workers,
                     double parameters, core::StrategyKind kind = core::StrategyKind::kRing) {
  core::Cluster cluster = testing::switch_cluster(1, 12.5e9, 2e-6);
  cluster.network_model = model;
  cluster.latency_factor = factor;
  return testing::collective_plan(cluster, kind, workers, parameters);
}

// A ring of N one-device nodes on a switch: each of its 2(N-1) steps crosses the sender's device
// link (1 us), its NIC (2 us), the receiver's NIC (2 us) and device link (1 us): 6 us, times the
// factor. With a 4 KB gradient the bytes take the same time whatever the factor, so going from
// factor 0 to f adds 2(N-1) x 6 us x f.
TEST(LatencyFactor, RingPaysItOnEveryStepsRoute) {
  for (int n : {2, 4, 8})
    for (double f : {1.0, 13.01}) {
      double zero = simulate(ring_plan("cm02", 0.0, n, 1000)).step_time_s;
      double with = simulate(ring_plan("cm02", f, n, 1000)).step_time_s;
      double expected = 2 * (n - 1) * 6e-6 * f;
      EXPECT_NEAR(with - zero, expected, 1e-3 * expected) << n << " ranks, factor " << f;
    }
}

// LV08 with its factor given as 13.01 is LV08 as it was; with 1 it keeps LV08's bandwidth factor
// and cross-traffic but not its latency factor.
TEST(LatencyFactor, Lv08WithItsOwnFactorIsUnchanged) {
  EXPECT_EQ(simulate(ring_plan("lv08", 13.01, 4, 1000)).step_time_s,
            simulate(ring_plan("lv08", std::nullopt, 4, 1000)).step_time_s);
  EXPECT_LT(simulate(ring_plan("lv08", 1.0, 4, 1000)).step_time_s,
            simulate(ring_plan("lv08", std::nullopt, 4, 1000)).step_time_s);
}

TEST(LatencyFactor, SimulatorAndClosedFormAgreeWithinTwoPercent) {
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kHalvingDoubling})
    for (const char* model : {"lv08", "cm02"})
      for (double f : {0.5, 1.0, 4.0})
        for (int n : {4, 16})
          for (double params : {2.5e5, 2.5e7}) {
            core::Plan plan = ring_plan(model, f, n, params, kind);
            double sim = simulate(plan).step_time_s, ana = predict_analytic(plan).step_time_s;
            EXPECT_LT(std::fabs(sim - ana) / sim, 0.02)
                << core::strategy_name(kind) << " " << model << " factor " << f << ", " << n
                << " workers, " << params << " parameters: sim " << sim << " s, analytic " << ana;
          }
}

}  // namespace
}  // namespace scaleout::sim
