// Compressed exchanges in the simulator and the closed forms: what crosses each NIC is what the
// wire format says, the two engines agree where nothing contends, and with communication made
// nearly free no compressor shortens a step (its compute cannot pay for itself).
#include <gtest/gtest.h>

#include <cmath>

#include "analytic/analytic.hpp"
#include "core/compression.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

using core::CompressionKind;

const CompressionKind kKinds[] = {CompressionKind::kTopk, CompressionKind::kRandomk,
                                  CompressionKind::kInt8, CompressionKind::kOnebit,
                                  CompressionKind::kPowersgd};

core::Plan compressed(core::Plan plan, CompressionKind kind) {
  plan.training.compression.kind = kind;
  plan.training.compression.density = 0.001;
  return plan;
}

double link_bytes(const core::RunResult& r, const std::string& name) {
  for (const auto& l : r.links)
    if (l.name == name) return l.bytes;
  ADD_FAILURE() << "no link " << name;
  return 0;
}

TEST(CompressionSim, EachNicCarriesTheWireFormatsBytes) {
  // One device per node: every transfer crosses both NICs; a NIC carries what its worker sends
  // and what it receives (the same amount in these symmetric exchanges).
  core::Cluster cluster = testing::switch_cluster(1, 12.5e9, 2e-6);
  for (CompressionKind kind : kKinds)
    for (int n : {3, 8}) {
      core::Plan plan =
          compressed(testing::collective_plan(cluster, core::StrategyKind::kRing, n, 2.5e6), kind);
      core::RunResult r = simulate(plan);
      double per_worker = core::compressed_wire_bytes(plan.training.compression, 2500000, n);
      EXPECT_NEAR(link_bytes(r, "node0-nic"), 2 * per_worker, 1e-6 * per_worker)
          << core::compression_name(kind) << " n=" << n;
      ASSERT_TRUE(r.compression);
      EXPECT_DOUBLE_EQ(r.compression->wire_bytes, per_worker);
    }
}

TEST(CompressionSim, SimAndClosedFormsAgreeWithinTwoPercent) {
  core::Cluster cluster = testing::switch_cluster(4, 12.5e9, 2e-6);
  for (CompressionKind kind : kKinds)
    for (int n : {4, 8, 16}) {
      core::Plan plan =
          compressed(testing::collective_plan(cluster, core::StrategyKind::kRing, n, 2.5e7), kind);
      double sim = simulate(plan).step_time_s, ana = predict_analytic(plan).step_time_s;
      EXPECT_LT(std::fabs(sim - ana) / sim, 0.02)
          << core::compression_name(kind) << " n=" << n << ": sim " << sim << " s, analytic " << ana
          << " s";
    }
}

TEST(CompressionSim, NoCompressorWinsWhenCommunicationIsFree) {
  core::Cluster cluster = testing::switch_cluster(8, 12.5e15, 0, 12.5e15, 0);  // 100,000 Gb/s
  for (bool overlap : {false, true})
    for (CompressionKind kind : kKinds) {
      core::Plan plan = testing::collective_plan(cluster, core::StrategyKind::kRing, 16, 2.5e7);
      plan.training.overlap = overlap;
      double none_sim = simulate(plan).step_time_s;
      double none_ana = predict_analytic(plan).step_time_s;
      plan = compressed(plan, kind);
      EXPECT_GE(simulate(plan).step_time_s, none_sim) << core::compression_name(kind);
      EXPECT_GE(predict_analytic(plan).step_time_s, none_ana) << core::compression_name(kind);
    }
}

core::Plan compressed_ps(const core::Cluster& cluster, int workers, CompressionKind kind) {
  core::Plan plan = testing::collective_plan(cluster, core::StrategyKind::kPs, workers, 2.5e7);
  plan.strategy.ps_servers = 2;
  return compressed(plan, kind);
}

// Over the parameter server (one device a node, servers on nodes of their own) worker 0's NIC
// carries its pushes and its pulls: the result's wire bytes per worker. The engines agree.
TEST(CompressionSim, AParameterServerCarriesTheWireFormatsBytes) {
  for (CompressionKind kind : {CompressionKind::kTopk, CompressionKind::kRandomk,
                               CompressionKind::kInt8, CompressionKind::kOnebit})
    for (int n : {4, 8}) {
      SCOPED_TRACE(std::string(core::compression_name(kind)) + " n=" + std::to_string(n));
      core::Plan plan = compressed_ps(testing::switch_cluster(1, 12.5e9, 2e-6), n, kind);
      core::RunResult r = simulate(plan);
      ASSERT_TRUE(r.compression);
      EXPECT_NEAR(link_bytes(r, "node0-nic"), r.compression->wire_bytes,
                  1e-6 * r.compression->wire_bytes);
      EXPECT_LT(r.compression->wire_bytes, r.compression->wire_bytes_uncompressed);
      double ana = predict_analytic(plan).step_time_s;
      EXPECT_LT(std::fabs(r.step_time_s - ana) / r.step_time_s, 0.02)
          << "sim " << r.step_time_s << " s, analytic " << ana << " s";
    }
}

TEST(CompressionSim, OverAFreeNetworkNoCompressedParameterServerWins) {
  core::Cluster cluster = testing::switch_cluster(8, 12.5e15, 0, 12.5e15, 0);  // 100,000 Gb/s
  core::Plan plain = testing::collective_plan(cluster, core::StrategyKind::kPs, 16, 2.5e7);
  plain.strategy.ps_servers = 2;
  double none_sim = simulate(plain).step_time_s, none_ana = predict_analytic(plain).step_time_s;
  for (CompressionKind kind : {CompressionKind::kTopk, CompressionKind::kOnebit}) {
    core::Plan plan = compressed_ps(cluster, 16, kind);
    EXPECT_GE(simulate(plan).step_time_s, none_sim) << core::compression_name(kind);
    EXPECT_GE(predict_analytic(plan).step_time_s, none_ana) << core::compression_name(kind);
  }
}

TEST(CompressionSim, OneBitPaysOnASlowNetwork) {
  // 1 Gb/s NICs: a 100 MB gradient's ring all-reduce takes seconds; 1-bit sends 1/32 of it.
  core::Cluster cluster = testing::switch_cluster(1, 1.25e8, 50e-6);
  core::Plan plan = testing::collective_plan(cluster, core::StrategyKind::kRing, 8, 2.5e7);
  double none = simulate(plan).step_time_s;
  double onebit = simulate(compressed(plan, CompressionKind::kOnebit)).step_time_s;
  EXPECT_LT(onebit, none / 10);
}

}  // namespace
}  // namespace scaleout::sim
