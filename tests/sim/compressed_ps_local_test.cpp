// BytePS's layout in the simulator and the closed form: a parameter server aggregated per node,
// with compression (core/programs/strategies/compressed_ps_local.cpp). A node's NIC carries one
// encoded contribution each way, counted here by hand; with the network made free a step is the
// plain aggregated one plus its codecs' seconds, a CPU server host's at its codec rate; the two
// engines agree on the rest.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "analytic/analytic.hpp"
#include "core/codecs/compression.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

using core::CompressionKind;

// 16 workers on 4 nodes of 4 devices, 2 servers on nodes of their own, 25M fp32 elements.
core::Plan byteps(const core::Cluster& cluster, CompressionKind kind) {
  core::Plan p = testing::collective_plan(cluster, core::StrategyKind::kPs, 16, 2.5e7);
  p.strategy.ps_servers = 2;
  p.strategy.ps_placement = core::PsPlacement::kDedicated;
  p.strategy.ps_local_aggregation = core::PsAggregation::kNode;
  p.training.compression.kind = kind;
  p.training.compression.density = 0.001;
  p.training.compression.bits = 4;
  return p;
}

double link_bytes(const core::RunResult& r, const std::string& name) {
  for (const auto& l : r.links)
    if (l.name == name) return l.bytes;
  ADD_FAILURE() << "no link " << name;
  return 0;
}

// A node's reduce-scatter leaves each of its 4 workers a quarter (6,250,000 elements); the 2
// shards cut no quarter, so every quarter is one piece, pushed by its owner to its server and
// pulled back. Node 0's NIC carries its 4 pieces each way:
//  - top-k: k = 6,250 (index, value) pairs pushed (12,500 words), the piece pulled dense;
//  - 1-bit: ceil(6,250,000 / 262,144) = 24 scales and 6,250,000 / 32 = 195,313 words (the last
//    one partly filled), pushed and pulled;
//  - 4 bits: 24 scales and 6,250,000 / 8 = 781,250 words, pushed and pulled.
TEST(CompressedPsLocal, ANodesNicCarriesOneEncodedContributionEachWay) {
  const std::pair<CompressionKind, double> kinds[] = {
      {CompressionKind::kTopk, 4 * (12500 + 6250000) * 4.0},
      {CompressionKind::kOnebit, 4 * 2 * (24 + 195313) * 4.0},
      {CompressionKind::kQuantize, 4 * 2 * (24 + 781250) * 4.0}};
  for (auto [kind, bytes] : kinds) {
    SCOPED_TRACE(core::compression_name(kind));
    core::RunResult r = simulate(byteps(testing::switch_cluster(4, 3.125e9, 5e-6), kind));
    ASSERT_TRUE(r.compression);
    EXPECT_NEAR(link_bytes(r, "node0-nic"), bytes, 1e-9 * bytes);
    // Worker 0: its node's dense ring (2 x 3/4 x 100 MB) and its quarter's pieces.
    double inside = 2 * 0.75 * 1e8;
    EXPECT_DOUBLE_EQ(r.compression->wire_bytes, inside + bytes / 4);
    EXPECT_DOUBLE_EQ(r.compression->wire_bytes_uncompressed, inside + 2 * 2.5e7);
  }
}

// On `free` (a 100,000 Gb/s network), with GPU and with CPU servers (codec_rate 1 G/s), in both
// engines: the codec seconds the result reports, and the compressed step over the plain one, are
// `codec(cpu)` (by hand) within `tolerance` seconds of the step.
void expect_codec_seconds(const core::Cluster& free, core::PsAggregation aggregation,
                          const std::function<double(bool)>& codec_of, double tolerance) {
  for (bool cpu : {false, true})
    for (bool analytic : {false, true}) {
      SCOPED_TRACE(std::string(cpu ? "cpu servers" : "gpu servers") +
                   (analytic ? " analytic" : " sim"));
      core::Plan plan = byteps(free, CompressionKind::kOnebit);
      plan.strategy.ps_local_aggregation = aggregation;
      if (cpu) plan.strategy.ps_server_hosts = core::PsServerHosts::kCpu;
      plan.cluster.host.codec_rate = 1e9;
      core::Plan plain = plan;
      plain.training.compression.kind = CompressionKind::kNone;
      auto run = [&](const core::Plan& p) { return analytic ? predict_analytic(p) : simulate(p); };
      core::RunResult r = run(plan);
      double codec = codec_of(cpu);
      ASSERT_TRUE(r.compression);
      EXPECT_NEAR(r.compression->codec_s, codec, 1e-9 * codec);
      EXPECT_NEAR(r.step_time_s - run(plain).step_time_s, codec, tolerance);
    }
}

// The codecs by hand, 1-bit at 40 G elements/s: a worker encodes and decodes its piece of
// 6,250,000 elements (2 passes: 312.5 us); a server combines 2 pieces, each 4 nodes' decodes and
// one encode (5 passes: 781.25 us each). On CPU server hosts at 1 G elements/s the servers take
// 2 x 5 x 6.25 ms.
TEST(CompressedPsLocal, AFreeNetworkCostsExactlyTheCodecsSeconds) {
  core::Cluster free = testing::switch_cluster(4, 12.5e15, 0, 12.5e15, 0);  // 100,000 Gb/s
  expect_codec_seconds(
      free, core::PsAggregation::kNode,
      [](bool cpu) { return 2 * 6.25e6 / 40e9 + 2 * 5 * 6.25e6 / (cpu ? 1e9 : 40e9); }, 5e-8);
}

// The flat compressed PS takes the CPU hosts' rate too: 16 workers encode and decode both shards
// of 12,500,000 elements (2 x 25M passes at 40 G/s), and each server decodes 16 pushes and
// re-encodes its shard (17 passes) at 1 G/s on a CPU host. The plain PS's own bytes still take
// about 0.1 us at 100,000 Gb/s.
TEST(CompressedPsLocal, FlatServersOnCpuHostsCombineAtTheirCodecRate) {
  core::Cluster free = testing::switch_cluster(4, 12.5e15, 0, 12.5e15, 0);
  expect_codec_seconds(
      free, core::PsAggregation::kNone,
      [](bool cpu) { return 2 * 2.5e7 / 40e9 + 17 * 1.25e7 / (cpu ? 1e9 : 40e9); }, 5e-7);
}

// The step less its compute and its codecs' seconds: what the network took.
double network_s(const core::RunResult& r) {
  return r.step_time_s - r.phases.compute_s - r.compression->codec_s;
}

// On 25 Gb/s NICs, nodes of 2 and 4, servers that cut the node's parts (3) or do not, every
// kind the parameter server carries.
TEST(CompressedPsLocal, SimulatorAndClosedFormAgreeOnTheNetwork) {
  for (int g : {2, 4})
    for (int servers : {2, 3})
      for (CompressionKind kind :
           {CompressionKind::kTopk, CompressionKind::kRandomk, CompressionKind::kInt8,
            CompressionKind::kOnebit, CompressionKind::kQuantize}) {
        SCOPED_TRACE(std::string(core::compression_name(kind)) + ", nodes of " + std::to_string(g) +
                     ", " + std::to_string(servers) + " servers");
        core::Plan plan = byteps(testing::switch_cluster(g, 3.125e9, 5e-6), kind);
        plan.strategy.ps_servers = servers;
        core::RunResult sim = simulate(plan), ana = predict_analytic(plan);
        EXPECT_GT(network_s(sim), 0);
        EXPECT_LT(std::fabs(network_s(sim) - network_s(ana)) / network_s(sim), 0.01)
            << "network: sim " << network_s(sim) << " s, analytic " << network_s(ana) << " s";
      }
}

// BytePS's layout pays where the NIC is the bottleneck: 1-bit over 25 Gb/s beats the plain
// aggregated PS in both engines.
TEST(CompressedPsLocal, OneBitPaysOnASlowNic) {
  core::Plan plan = byteps(testing::switch_cluster(4, 3.125e9, 5e-6), CompressionKind::kOnebit);
  core::Plan plain = plan;
  plain.training.compression.kind = CompressionKind::kNone;
  EXPECT_LT(simulate(plan).step_time_s, simulate(plain).step_time_s / 4);
  EXPECT_LT(predict_analytic(plan).step_time_s, predict_analytic(plain).step_time_s / 4);
}

}  // namespace
}  // namespace scaleout::sim
