// Compressed exchanges in the simulator and the closed forms: what crosses each NIC is what the
// wire format says (counted by hand here), the two engines agree on the network's part of a step
// where nothing contends (the codec's seconds, priced alike in both, left out), and with
// communication made nearly free no compressor shortens a step (its compute cannot pay for itself).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "analytic/analytic.hpp"
#include "core/codecs/compression.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

using core::CompressionKind;

const CompressionKind kKinds[] = {CompressionKind::kTopk,     CompressionKind::kRandomk,
                                  CompressionKind::kInt8,     CompressionKind::kOnebit,
                                  CompressionKind::kPowersgd, CompressionKind::kQuantize};

core::Plan compressed(core::Plan plan, CompressionKind kind) {
  plan.training.compression.kind = kind;
  plan.training.compression.bits = 4;  // quantize
  plan.training.compression.density = 0.001;
  return plan;
}

double link_bytes(const core::RunResult& r, const std::string& name) {
  for (const auto& l : r.links)
    if (l.name == name) return l.bytes;
  ADD_FAILURE() << "no link " << name;
  return 0;
}

// Bytes one worker sends for a bucket of 2,500,000 fp32 elements (density 0.001, a scale per
// 1 MiB = 262,144 elements, PowerSGD rank 4), counted by hand from core/codecs/compression.hpp's
// formats.
struct WireCase {
  CompressionKind kind;
  int workers;
  double bytes;
};
const WireCase kWireCases[] = {
    // k = 0.001 x 2,500,000 = 2,500 (index, value) pairs: 20,000 bytes, sent n - 1 times.
    {CompressionKind::kTopk, 3, 2 * 20000.0},
    {CompressionKind::kTopk, 8, 7 * 20000.0},
    {CompressionKind::kRandomk, 3, 2 * 20000.0},
    {CompressionKind::kRandomk, 8, 7 * 20000.0},
    // int8: parts of ceil(2,500,000 / 3) = 833,334 elements: ceil(833,334 / 262,144) = 4 scales
    // and ceil(833,334 / 4) = 208,334 words of values, 208,338 words; sent 2 (n - 1) = 4 times, 4
    // bytes a word: 3,333,408. n = 8: parts of 312,500: 2 scales + 78,125 words, 14 sends:
    // 4,375,112.
    {CompressionKind::kInt8, 3, 4 * 208338 * 4.0},
    {CompressionKind::kInt8, 8, 14 * 78127 * 4.0},
    // 1-bit: ceil(833,334 / 32) = 26,042 words + 4 scales = 26,046, 4 sends: 416,736; n = 8:
    // ceil(312,500 / 32) = 9,766 + 2 = 9,768, 14 sends: 547,008.
    {CompressionKind::kOnebit, 3, 4 * 26046 * 4.0},
    {CompressionKind::kOnebit, 8, 14 * 9768 * 4.0},
    // quantize, 4 bits: ceil(833,334 / 8) = 104,167 words + 4 scales, 4 sends.
    {CompressionKind::kQuantize, 3, 4 * 104171 * 4.0},
    // PowerSGD: 2^round(log2 sqrt(2.5e6)) = 2^11 = 2,048 columns, ceil(2.5e6 / 2,048) = 1,221 rows.
    // Parts of P (1,221 x 4) and Q (2,048 x 4) per owner, each sent 2 (n - 1) times. n = 3:
    // 1,628 + ceil(8,192 / 3) = 2,731 words, 4 sends: 69,744; n = 8: 611 + 1,024, 14: 91,560.
    {CompressionKind::kPowersgd, 3, 4 * (1628 + 2731) * 4.0},
    {CompressionKind::kPowersgd, 8, 14 * (611 + 1024) * 4.0},
};

TEST(CompressionSim, EachNicCarriesTheWireFormatsBytes) {
  // One device per node: every transfer crosses both NICs; a NIC carries what its worker sends
  // and what it receives (the same amount in these symmetric exchanges).
  core::Cluster cluster = testing::switch_cluster(1, 12.5e9, 2e-6);
  for (const WireCase& w : kWireCases) {
    SCOPED_TRACE(std::string(core::compression_name(w.kind)) + " n=" + std::to_string(w.workers));
    core::Plan plan = compressed(
        testing::collective_plan(cluster, core::StrategyKind::kRing, w.workers, 2.5e6), w.kind);
    core::RunResult r = simulate(plan);
    EXPECT_NEAR(link_bytes(r, "node0-nic"), 2 * w.bytes, 1e-9 * w.bytes);
    ASSERT_TRUE(r.compression);
    EXPECT_DOUBLE_EQ(r.compression->wire_bytes, w.bytes);
  }
}

// The step less its compute and its codec's seconds: what the network took.
double network_s(const core::RunResult& r) {
  return r.step_time_s - r.phases.compute_s - (r.compression ? r.compression->codec_s : 0);
}

// The codec's seconds are priced by one formula in both engines and can be most of a step (top-k's
// selection of 25M elements: 10 ms, against tens of microseconds of network): the engines are
// held to each other on what the network took.
TEST(CompressionSim, SimAndClosedFormsAgreeOnTheNetworkWithinTwoPercent) {
  core::Cluster cluster = testing::switch_cluster(4, 12.5e9, 2e-6);
  for (CompressionKind kind : kKinds)
    for (int n : {4, 8, 16}) {
      SCOPED_TRACE(std::string(core::compression_name(kind)) + " n=" + std::to_string(n));
      core::Plan plan =
          compressed(testing::collective_plan(cluster, core::StrategyKind::kRing, n, 2.5e7), kind);
      core::RunResult sim = simulate(plan), ana = predict_analytic(plan);
      ASSERT_TRUE(sim.compression && ana.compression);
      EXPECT_GT(network_s(sim), 0);
      EXPECT_LT(std::fabs(network_s(sim) - network_s(ana)) / network_s(sim), 0.02)
          << "network: sim " << network_s(sim) << " s, analytic " << network_s(ana) << " s";
    }
}

// The network's part by hand, 8 workers on two 4-device nodes: a flow between the nodes takes
// 1 us (device to NIC) + 2 us + 2 us (the two NICs) + 1 us = 6 us of latency and 12.5 GB/s shared
// by the flows leaving its node; a ring step lasts as long as its flows across the nodes.
TEST(CompressionSim, TheNetworksPartIsTheHandCount) {
  core::Cluster cluster = testing::switch_cluster(4, 12.5e9, 2e-6);
  core::Plan plan = testing::collective_plan(cluster, core::StrategyKind::kRing, 8, 2.5e7);
  // Top-k: k = 25,000 pairs, 200,000 bytes, all-gathered in 7 ring steps of 6 + 16 us: 154 us.
  double topk = 7 * (6e-6 + 200000 / 12.5e9);
  // 1-bit: parts of 3,125,000 elements: 12 scales + 97,657 words = 390,676 bytes. Round s of the
  // direct sends (to rank + s) has 1, 2, 3, 4, 3, 2, 1 flows leaving each node (s = 1..7): 16
  // parts' time at the NIC's full rate and 7 latencies; then 7 ring steps of one part.
  double onebit = 7 * 6e-6 + 16 * 390676 / 12.5e9 + 7 * (6e-6 + 390676 / 12.5e9);
  for (auto [kind, expected] :
       {std::pair{CompressionKind::kTopk, topk}, std::pair{CompressionKind::kOnebit, onebit}}) {
    SCOPED_TRACE(core::compression_name(kind));
    core::Plan p = compressed(plan, kind);
    EXPECT_NEAR(network_s(simulate(p)), expected, 1e-9 * expected);
    EXPECT_NEAR(network_s(predict_analytic(p)), expected, 1e-9 * expected);
  }
}

// Random-k with shared indices all-reduces k values around the ring: 2 (n - 1) / n x 4k bytes a
// worker (k = 2,500 of 2,500,000 at density 0.001; n = 4 and 5 cut k into equal segments: 6 x
// 625 and 8 x 500 words of 4 bytes), the engines agree on the network, and on two 4-device
// nodes the 2 (n - 1) = 14 ring steps of k / 8 values each last 6 us + their bytes at 12.5 GB/s.
core::Plan shared_randomk(core::Plan plan) {
  plan = compressed(plan, CompressionKind::kRandomk);
  plan.training.compression.shared_indices = true;
  return plan;
}

// GRACE's 1-bit exchange: the whole bucket encoded (2.5M signs: 78,125 words, and 10 scales of
// 262,144 elements), sent n - 1 times around the ring.
TEST(CompressionSim, AllGatheredOneBitSendsTheWholeEncodedBucket) {
  core::Cluster one_per_node = testing::switch_cluster(1, 12.5e9, 2e-6);
  for (int n : {3, 8}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    core::Plan plan =
        compressed(testing::collective_plan(one_per_node, core::StrategyKind::kRing, n, 2.5e6),
                   CompressionKind::kOnebit);
    plan.training.compression.allgather = true;
    core::RunResult r = simulate(plan);
    double bytes = (n - 1) * 78135 * 4.0;
    EXPECT_NEAR(link_bytes(r, "node0-nic"), 2 * bytes, 1e-9 * bytes);
    ASSERT_TRUE(r.compression);
    EXPECT_DOUBLE_EQ(r.compression->wire_bytes, bytes);
    core::RunResult ana = predict_analytic(plan);
    EXPECT_LT(std::fabs(network_s(r) - network_s(ana)) / network_s(r), 0.02);
  }
}

TEST(CompressionSim, SharedRandomKAllReducesTheValuesAlone) {
  core::Cluster one_per_node = testing::switch_cluster(1, 12.5e9, 2e-6);
  for (auto [n, bytes] : {std::pair{4, 6 * 625 * 4.0}, std::pair{5, 8 * 500 * 4.0}}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    core::RunResult r = simulate(shared_randomk(
        testing::collective_plan(one_per_node, core::StrategyKind::kRing, n, 2.5e6)));
    EXPECT_NEAR(link_bytes(r, "node0-nic"), 2 * bytes, 1e-9 * bytes);
    ASSERT_TRUE(r.compression);
    EXPECT_DOUBLE_EQ(r.compression->wire_bytes, bytes);
  }
  core::Cluster four_per_node = testing::switch_cluster(4, 12.5e9, 2e-6);
  for (int n : {4, 8, 16}) {
    SCOPED_TRACE("agreement n=" + std::to_string(n));
    core::Plan plan = shared_randomk(
        testing::collective_plan(four_per_node, core::StrategyKind::kRing, n, 2.5e7));
    core::RunResult sim = simulate(plan), ana = predict_analytic(plan);
    EXPECT_LT(std::fabs(network_s(sim) - network_s(ana)) / network_s(sim), 0.02)
        << "network: sim " << network_s(sim) << " s, analytic " << network_s(ana) << " s";
  }
  // k = 25,000 values of 25M: segments of 3,125 values, 12,500 bytes.
  double expected = 14 * (6e-6 + 12500 / 12.5e9);
  core::Plan plan =
      shared_randomk(testing::collective_plan(four_per_node, core::StrategyKind::kRing, 8, 2.5e7));
  EXPECT_NEAR(network_s(simulate(plan)), expected, 1e-9 * expected);
  EXPECT_NEAR(network_s(predict_analytic(plan)), expected, 1e-9 * expected);
}

// With the network made free, a compressed step is the plain one plus its codec's seconds, with
// overlap too: the codec runs on the device that computes backward, and what it takes from
// backward comes back nowhere. int8's seconds by hand: an element-wise pass (40 G elements/s) to
// encode the bucket, n + 1 over the owned part (decode the n copies, re-encode), one to decode:
// (2 + 17/16) x 25M / 40e9 at 16 workers (every bucket's parts even: 2^24 and 8,222,784).
// Before codecs took the device from backward, an overlapped step paid only the last bucket's.
TEST(CompressionSim, AFreeNetworkCostsExactlyTheCodecsDeviceTime) {
  core::Cluster cluster = testing::switch_cluster(8, 12.5e15, 0, 12.5e15, 0);
  double int8 = (2 + 17.0 / 16) * 2.5e7 / 40e9;
  for (bool overlap : {false, true}) {
    core::Plan plain = testing::collective_plan(cluster, core::StrategyKind::kRing, 16, 2.5e7);
    plain.training.overlap = overlap;
    plain.training.fusion_buffer = 64.0 * 1024 * 1024;
    for (bool analytic : {false, true}) {
      auto step = [&](const core::Plan& p) {
        core::RunResult r = analytic ? predict_analytic(p) : simulate(p);
        return std::pair{r.step_time_s, r.compression ? r.compression->codec_s : 0.0};
      };
      double none = step(plain).first;
      std::vector<core::Plan> plans;
      for (CompressionKind kind : kKinds) plans.push_back(compressed(plain, kind));
      plans.push_back(shared_randomk(plain));
      plans.push_back(compressed(plain, CompressionKind::kQuantize));
      plans.back().training.compression.allgather = true;
      for (const core::Plan& p : plans) {
        SCOPED_TRACE(std::string(core::compression_name(p.training.compression.kind)) +
                     (overlap ? " overlapped" : "") + (analytic ? " analytic" : " sim"));
        auto [time, codec] = step(p);
        // The plain exchange's bytes still take 15 ns at 100,000 Gb/s (2 x 15/16 x 100 MB).
        EXPECT_NEAR(time - none, codec, 5e-8);
        if (p.training.compression.kind == CompressionKind::kInt8)
          EXPECT_NEAR(codec, int8, 1e-6 * int8);
      }
    }
  }
}

// Where 1-bit stops paying, by the bytes: without overlap a step is compute + exchange. Over one
// device a node and no latency, the plain ring takes 2 (n - 1) steps of B / n bytes at the NIC's
// rate and 1-bit 2 (n - 1) sends of one encoded part (s bytes) plus its codec's seconds, so the
// two steps meet at bw* = 2 (n - 1) (B / n - s) / codec. Below bw* 1-bit wins, above it loses.
// 2.5M elements (B = 10 MB): n = 4, parts of 625,000: 3 scales + 19,532 words = 78,140 bytes,
// codec (2 x 2.5M + 5 x 625,000) / 40e9; n = 8, parts of 312,500: 2 + 9,766 words = 39,072
// bytes, codec (2 x 2.5M + 9 x 312,500) / 40e9.
TEST(CompressionSim, OneBitsCrossoverIsWhereItsBytesSaveItsCodecsTime) {
  struct Crossover {
    int n;
    double part_bytes, codec_s;
  };
  for (Crossover x : {Crossover{4, 78140, (5e6 + 5 * 625000) / 40e9},
                      Crossover{8, 39072, (5e6 + 9 * 312500) / 40e9}}) {
    double bw = 2 * (x.n - 1) * (1e7 / x.n - x.part_bytes) / x.codec_s;
    for (double factor : {0.5, 1.0, 2.0}) {
      core::Cluster cluster = testing::switch_cluster(1, bw * factor, 0, 1e12, 0);
      core::Plan plain = testing::collective_plan(cluster, core::StrategyKind::kRing, x.n, 2.5e6);
      core::Plan onebit = compressed(plain, CompressionKind::kOnebit);
      for (bool analytic : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(x.n) + " at " + std::to_string(factor) + " bw*" +
                     (analytic ? " analytic" : " sim"));
        auto step = [&](const core::Plan& p) {
          return (analytic ? predict_analytic(p) : simulate(p)).step_time_s;
        };
        double ratio = step(onebit) / step(plain);
        if (factor < 1) EXPECT_LT(ratio, 0.99);
        if (factor == 1) EXPECT_NEAR(ratio, 1.0, 1e-6);
        if (factor > 1) EXPECT_GT(ratio, 1.01);
      }
    }
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
      if (kind != CompressionKind::kRandomk) continue;
      plan.training.compression.shared_indices = true;
      EXPECT_GE(simulate(plan).step_time_s, none_sim) << "shared randomk";
      EXPECT_GE(predict_analytic(plan).step_time_s, none_ana) << "shared randomk";
    }
}

core::Plan compressed_ps(const core::Cluster& cluster, int workers, CompressionKind kind) {
  core::Plan plan = testing::collective_plan(cluster, core::StrategyKind::kPs, workers, 2.5e7);
  plan.strategy.ps_servers = 2;
  return compressed(plan, kind);
}

// Over the parameter server (one device a node, servers on nodes of their own) worker 0's NIC
// carries its pushes and its pulls, counted here by hand: 2 shards of 12,500,000 elements, each
// pushed and pulled, whatever the number of workers. The engines agree on the network's part.
TEST(CompressionSim, AParameterServerCarriesTheWireFormatsBytes) {
  const std::pair<CompressionKind, double> kinds[] = {
      // 12,500 (index, value) pairs pushed (25,000 words), the shard pulled dense (12,500,000).
      {CompressionKind::kTopk, 2 * (25000 + 12500000) * 4.0},
      {CompressionKind::kRandomk, 2 * (25000 + 12500000) * 4.0},
      // ceil(12,500,000 / 262,144) = 48 scales + 12,500,000 / 4 = 3,125,000 words, pushed and
      // pulled encoded.
      {CompressionKind::kInt8, 2 * 2 * (48 + 3125000) * 4.0},
      // 48 scales + 12,500,000 / 32 = 390,625 words.
      {CompressionKind::kOnebit, 2 * 2 * (48 + 390625) * 4.0}};
  for (auto [kind, bytes] : kinds)
    for (int n : {4, 8}) {
      SCOPED_TRACE(std::string(core::compression_name(kind)) + " n=" + std::to_string(n));
      core::Plan plan = compressed_ps(testing::switch_cluster(1, 12.5e9, 2e-6), n, kind);
      core::RunResult r = simulate(plan);
      ASSERT_TRUE(r.compression);
      EXPECT_NEAR(link_bytes(r, "node0-nic"), bytes, 1e-9 * bytes);
      EXPECT_DOUBLE_EQ(r.compression->wire_bytes, bytes);
      EXPECT_DOUBLE_EQ(r.compression->wire_bytes_uncompressed, 2 * 2.5e7 * 4);  // dense push, pull
      core::RunResult ana = predict_analytic(plan);
      EXPECT_GT(network_s(r), 0);
      EXPECT_LT(std::fabs(network_s(r) - network_s(ana)) / network_s(r), 0.02)
          << "network: sim " << network_s(r) << " s, analytic " << network_s(ana) << " s";
    }
}

// Shared random-k and signSGD's vote over the same servers, worker 0's NIC by hand: 12,500 values
// of each shard pushed and their sums pulled; the vote's signs pushed (48 scales + 390,625 words)
// and, with an even number of workers, its 2-bit codes pulled (48 + 781,250 words).
TEST(CompressionSim, SharedRandomKAndTheVoteOverAParameterServerCarryTheirBytes) {
  core::Plan shared =
      compressed_ps(testing::switch_cluster(1, 12.5e9, 2e-6), 4, CompressionKind::kRandomk);
  shared.training.compression.shared_indices = true;
  core::Plan vote =
      compressed_ps(testing::switch_cluster(1, 12.5e9, 2e-6), 4, CompressionKind::kOnebit);
  vote.training.compression.majority_vote = true;
  vote.training.compression.error_feedback = false;
  for (auto [plan, bytes] : {std::pair{shared, 2 * 2 * 12500 * 4.0},
                             std::pair{vote, 2 * ((48 + 390625) + (48 + 781250)) * 4.0}}) {
    SCOPED_TRACE(plan.training.compression.majority_vote ? "vote" : "shared random-k");
    core::RunResult r = simulate(plan);
    ASSERT_TRUE(r.compression);
    EXPECT_NEAR(link_bytes(r, "node0-nic"), bytes, 1e-9 * bytes);
    EXPECT_DOUBLE_EQ(r.compression->wire_bytes, bytes);
    core::RunResult ana = predict_analytic(plan);
    EXPECT_LT(std::fabs(network_s(r) - network_s(ana)) / network_s(r), 0.02)
        << "network: sim " << network_s(r) << " s, analytic " << network_s(ana) << " s";
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
  // 1 Gb/s NICs: a 100 MB gradient's ring all-reduce takes seconds; 1-bit sends 1/32 of it. Each of
  // a ring's steps between one-device nodes has 1 + 50 + 50 + 1 us of latency.
  core::Cluster cluster = testing::switch_cluster(1, 1.25e8, 50e-6);
  core::Plan plan = testing::collective_plan(cluster, core::StrategyKind::kRing, 8, 2.5e7);
  // Uncompressed: 14 steps of 1e8 / 8 = 12.5 MB (0.1 s) and 102 us; 10 us of compute: 1.401438 s.
  double none = 14 * (0.1 + 102e-6) + 10e-6;
  // 1-bit: 14 sends of a part's 390,676 bytes (3,125,000 elements: 12 scales and 97,657 words),
  // 3,125.408 us each, and 102 us; the codec at 40 G elements/s: encode 25M (625 us), the owner's
  // (8 + 1) x 3,125,000 (703.125 us), decode 25M (625 us); compute 10 us: 47.146837 ms, 1/29.7 of
  // the uncompressed step.
  double onebit = 14 * (390676 / 1.25e8 + 102e-6) + (625 + 703.125 + 625) * 1e-6 + 10e-6;
  EXPECT_NEAR(simulate(plan).step_time_s, none, 1e-9 * none);
  EXPECT_NEAR(simulate(compressed(plan, CompressionKind::kOnebit)).step_time_s, onebit,
              1e-9 * onebit);
}

}  // namespace
}  // namespace scaleout::sim
