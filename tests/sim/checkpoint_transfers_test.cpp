// A checkpoint's writes and reads simulated on the platform's links: where the storage's link is
// the bottleneck the simulation gives the closed form's time, and where the network is (a rack's
// uplink) it gives what the uplink allows, which the closed form does not see. Expectations are
// worked out by hand from the plans' numbers.
#include <gtest/gtest.h>

#include <string>

#include "analytic/analytic.hpp"
#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

// Each tensor rank of the GPT below holds 8 layers of (12 h^2 + 13 h) / 2, half the word
// embedding and its own positions: 236,298,240 parameters (tests/core/goodput_test.cpp).
constexpr double kPerRank = 236298240.0;

// Two nodes of 4 devices; tensor 2, data 4; checkpoints every 100 steps.
core::Plan gpt(const std::string& network, const std::string& storage, int zero) {
  return testing::load_text(
      "checkpoint-links-" + std::to_string(zero),
      "cluster:\n  name: c\n  devices_per_node: 4\n"
      "  device: { name: X, flops: 100TFLOPS, memory: 80GB }\n"
      "  intra_node: { bandwidth: 100GB/s, latency: 1us }\n"
      "  nic: { bandwidth: 100Gbps, latency: 2us }\n" +
          network + "  storage: " + storage +
          "\n  network_model: cm02\n"
          "workload:\n  name: gpt\n  efficiency: 0.5\n"
          "  transformer: { layers: 8, hidden: 2048, heads: 16, sequence: 1024, vocabulary: "
          "32000 }\n"
          "parallelism: { tensor: 2, zero: " +
          std::to_string(zero) +
          " }\n"
          "strategy: { kind: ring }\n"
          "training: { workers: 8, global_batch: 8, steps: 1, gradient_precision: bf16 }\n"
          "reliability: { node_mtbf: 100d, train_steps: 1M }\n"
          "checkpoint: { every: 100, restart: 5min }\n");
}

core::RunResult simulated(const core::Plan& plan, bool flat_zone = true) {
  SimOptions options;
  options.shortcuts.flat_zone = flat_zone;
  return simulate(plan, options);
}

TEST(CheckpointOnLinks, StorageBoundWritesTakeTheClosedFormsTime) {
  // ZeRO-1: each of the 8 ranks writes a quarter of its tensor rank's Adam states (12 bytes a
  // parameter), data rank 0's two ranks the 16-bit weights too: 28 x kPerRank bytes in all, over
  // 2 GB/s (the NICs carry 12.5 GB/s each). Reading back, each rank reads its quarter and all
  // its weights, 5 x kPerRank: 40 x kPerRank over 4 GB/s.
  core::Plan plan = gpt("", "{ write_bandwidth: 2GB/s, read_bandwidth: 4GB/s }", 1);
  core::RunResult sim = simulated(plan);
  ASSERT_TRUE(sim.reliability);
  EXPECT_EQ(sim.reliability->checkpoint_timed_by, "SimGrid");
  EXPECT_NEAR(sim.reliability->checkpoint_write_s, 28 * kPerRank / 2e9, 1e-4);
  EXPECT_NEAR(sim.reliability->checkpoint_read_s, 40 * kPerRank / 4e9, 1e-4);
  EXPECT_DOUBLE_EQ(sim.reliability->checkpoint_cost_s, sim.reliability->checkpoint_write_s);
  // The closed form agrees, and the zone per node builds the same storage route.
  core::RunResult closed = predict_analytic(plan);
  ASSERT_TRUE(closed.reliability);
  EXPECT_EQ(closed.reliability->checkpoint_timed_by, "closed form");
  EXPECT_NEAR(closed.reliability->checkpoint_write_s, sim.reliability->checkpoint_write_s, 1e-4);
  EXPECT_NEAR(closed.reliability->checkpoint_read_s, sim.reliability->checkpoint_read_s, 1e-4);
  core::RunResult zones = simulated(plan, false);
  EXPECT_NEAR(zones.reliability->checkpoint_write_s, sim.reliability->checkpoint_write_s, 1e-9);
  EXPECT_NEAR(zones.reliability->checkpoint_read_s, sim.reliability->checkpoint_read_s, 1e-9);
}

TEST(CheckpointOnLinks, ARacksUplinkLimitsWhatTheClosedFormMisses) {
  // Each node its own rack behind a 10 Gb/s uplink (1.25 GB/s); the storage (100 GB/s) hangs
  // off the core switch. Without ZeRO, data rank 0's two ranks, both on node 0, write 14 bytes a
  // parameter each: 28 x kPerRank through node 0's uplink. Reading back, the 4 ranks of each
  // node read 14 x kPerRank each through their rack's uplink: 56 x kPerRank, both racks at once.
  core::Plan plan =
      gpt("  network: { kind: two_tier, hosts_per_rack: 1, uplink: { bandwidth: 10Gbps, latency: "
          "2us } }\n",
          "{ write_bandwidth: 100GB/s, read_bandwidth: 100GB/s }", 0);
  core::RunResult sim = simulated(plan);
  ASSERT_TRUE(sim.reliability);
  EXPECT_NEAR(sim.reliability->checkpoint_write_s, 28 * kPerRank / 1.25e9, 1e-3);
  EXPECT_NEAR(sim.reliability->checkpoint_read_s, 56 * kPerRank / 1.25e9, 1e-3);
  // The closed form sees the storage and the nodes' NICs (12.5 GB/s) only: ten times faster.
  core::RunResult closed = predict_analytic(plan);
  EXPECT_NEAR(closed.reliability->checkpoint_write_s, 28 * kPerRank / 12.5e9, 1e-6);
  // A longer checkpoint costs goodput.
  EXPECT_LT(sim.reliability->goodput, closed.reliability->goodput);
}

TEST(CheckpointOnLinks, TheStepIsTheSameWithTheStorageOnThePlatform) {
  core::Plan plan = gpt("", "{ write_bandwidth: 2GB/s, read_bandwidth: 4GB/s }", 1);
  core::RunResult with_storage = simulated(plan);
  plan.reliability.reset();
  core::RunResult without = simulated(plan);
  EXPECT_FALSE(without.reliability);
  EXPECT_EQ(with_storage.step_time_s, without.step_time_s);
}

}  // namespace
}  // namespace scaleout::sim
