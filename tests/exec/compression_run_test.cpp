// Compressed exchanges executed over Gloo: real selection, quantization and low-rank power
// iteration of real floats, each step's gradient checked bit for bit against the reference built
// from what every worker's compressor emitted, its error feedback carried into the next step.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>

#include "core/codecs/compression.hpp"
#include "exec/local_run.hpp"
#include "tests/exec/quick_options.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::exec {
namespace {

using core::CompressionKind;

core::Plan compressed_plan(CompressionKind kind, int workers, bool overlap) {
  core::Plan p = testing::collective_plan(testing::switch_cluster(2, 1.25e9, 5e-6),
                                          core::StrategyKind::kRing, workers, 100003);
  p.training.steps = 3;
  p.training.overlap = overlap;
  p.training.fusion_buffer = 160000;  // with overlap: several buckets of 40,000 elements
  p.strategy.chunk = 64 * 1024;
  p.training.compression.kind = kind;
  p.training.compression.density = 0.01;
  p.training.compression.chunk = 4096;  // several scales per part
  return p;
}

ExecOptions quick() { return testing::quick_options(); }

// Runs `plan`'s three steps on Gloo; every step must match the reference and send fewer bytes
// than the plain exchange.
core::RunResult run_checked(const core::Plan& plan) {
  core::RunResult r = run_local(plan, quick());
  EXPECT_EQ(r.wrong, 0);
  EXPECT_EQ(r.steps.size(), 3u);
  EXPECT_TRUE(r.compression);
  if (r.compression) EXPECT_LT(r.compression->wire_bytes, r.compression->wire_bytes_uncompressed);
  return r;
}

// The same run with its error feedback dropped: the check must catch it.
void expect_caught_without_error_feedback(const core::Plan& plan) {
  ExecOptions o = quick();
  o.faults.drop_error_feedback = true;
  EXPECT_GT(run_local(plan, o).wrong, 0);  // the CLI then fails the run
}

TEST(CompressionRun, EveryStepMatchesTheReferenceExactly) {
  for (CompressionKind kind :
       {CompressionKind::kTopk, CompressionKind::kRandomk, CompressionKind::kInt8,
        CompressionKind::kOnebit, CompressionKind::kPowersgd})
    for (int n : {3, 4})
      for (bool overlap : {false, true}) {
        SCOPED_TRACE(std::string(core::compression_name(kind)) + " n=" + std::to_string(n) +
                     (overlap ? " overlapped" : ""));
        run_checked(compressed_plan(kind, n, overlap));
      }
}

// GRACE's random-k: every worker draws the same indices and the ring all-reduces the values.
TEST(CompressionRun, SharedRandomKMatchesTheReferenceExactly) {
  for (int n : {3, 4})
    for (bool overlap : {false, true}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (overlap ? " overlapped" : ""));
      core::Plan p = compressed_plan(CompressionKind::kRandomk, n, overlap);
      p.training.compression.shared_indices = true;
      core::RunResult r = run_checked(p);
      ASSERT_TRUE(r.compression);
      // 2 (n - 1) / n of the values against (n - 1) (index, value) pairs: n times fewer bytes.
      p.training.compression.shared_indices = false;
      core::RunResult own = run_local(p, quick());
      EXPECT_NEAR(own.compression->wire_bytes / r.compression->wire_bytes, n, 1e-9);
    }
  core::Plan p = compressed_plan(CompressionKind::kRandomk, 3, false);
  p.training.compression.shared_indices = true;
  expect_caught_without_error_feedback(p);
}

TEST(CompressionRun, DroppingErrorFeedbackFailsTheCheck) {
  for (CompressionKind kind :
       {CompressionKind::kTopk, CompressionKind::kOnebit, CompressionKind::kPowersgd}) {
    SCOPED_TRACE(core::compression_name(kind));
    expect_caught_without_error_feedback(compressed_plan(kind, 3, false));
  }
}

// The synchronous parameter server carries the compressors too: 3 workers push to 2 servers
// (the servers are the owners), every worker's pulled gradient held to the reference.
core::Plan compressed_ps_plan(CompressionKind kind, bool overlap) {
  core::Plan p = compressed_plan(kind, 3, overlap);
  p.strategy.kind = core::StrategyKind::kPs;
  p.strategy.ps_servers = 2;
  return p;
}

TEST(CompressionRun, OverAParameterServerEveryStepMatchesTheReference) {
  for (CompressionKind kind : {CompressionKind::kTopk, CompressionKind::kRandomk,
                               CompressionKind::kInt8, CompressionKind::kOnebit})
    for (bool overlap : {false, true}) {
      SCOPED_TRACE(std::string(core::compression_name(kind)) + (overlap ? " overlapped" : ""));
      core::RunResult r = run_local(compressed_ps_plan(kind, overlap), quick());
      EXPECT_EQ(r.wrong, 0);
      EXPECT_EQ(r.steps.size(), 3u);
      ASSERT_TRUE(r.compression);
      EXPECT_LT(r.compression->wire_bytes, r.compression->wire_bytes_uncompressed);
    }
  for (CompressionKind kind : {CompressionKind::kTopk, CompressionKind::kOnebit}) {
    SCOPED_TRACE(std::string("without error feedback: ") + core::compression_name(kind));
    expect_caught_without_error_feedback(compressed_ps_plan(kind, false));
  }
}

// BytePS's layout: nodes of 2 reduce inside the node, one encoded contribution per node pushed.
// Whole nodes over one server, shards that cut the nodes' parts (3 servers), and a last node of
// one worker (3 workers): the pieces differ, the check is the same.
TEST(CompressionRun, AggregatedPerNodeEveryStepMatchesTheReference) {
  struct Case {
    int workers, servers;
  };
  for (Case c : {Case{4, 1}, Case{4, 3}, Case{3, 2}})
    for (CompressionKind kind : {CompressionKind::kTopk, CompressionKind::kRandomk,
                                 CompressionKind::kOnebit, CompressionKind::kQuantize}) {
      SCOPED_TRACE(std::string(core::compression_name(kind)) + ", " + std::to_string(c.workers) +
                   " workers, " + std::to_string(c.servers) + " servers");
      core::Plan p = compressed_plan(kind, c.workers, c.workers == 4);
      p.strategy.kind = core::StrategyKind::kPs;
      p.strategy.ps_servers = c.servers;
      p.strategy.ps_local_aggregation = core::PsAggregation::kNode;
      p.training.compression.bits = 2;
      run_checked(p);
      if (c.servers == 3 && (kind == CompressionKind::kTopk || kind == CompressionKind::kOnebit))
        expect_caught_without_error_feedback(p);
    }
}

// Over the PS too, GRACE's shared random-k pushes and pulls the values alone, and signSGD's server
// counts the votes: odd (3) and even (4) workers, flat and (random-k) aggregated per node.
TEST(CompressionRun, SharedRandomKAndTheVoteOverAParameterServerMatchTheReference) {
  for (int workers : {3, 4})
    for (bool by_node : {false, true}) {
      SCOPED_TRACE(std::to_string(workers) + " workers" + (by_node ? " per node" : ""));
      core::Plan p = compressed_ps_plan(CompressionKind::kRandomk, workers == 4);
      p.training.workers = workers;
      p.training.compression.shared_indices = true;
      if (by_node) p.strategy.ps_local_aggregation = core::PsAggregation::kNode;
      run_checked(p);
      if (workers == 3 && !by_node) expect_caught_without_error_feedback(p);
      if (by_node) continue;
      p.training.compression.kind = CompressionKind::kOnebit;
      p.training.compression.shared_indices = false;
      p.training.compression.majority_vote = true;
      p.training.compression.error_feedback = false;
      run_checked(p);
    }
}

// A bucket smaller than the servers leaves some shards empty: their servers take no part in it.
// 3 elements over 4 servers are shards of 1, 1, 1 and 0: a worker pushes to and pulls from three
// servers only, and its wire bytes are those three shards' (a fourth, empty, costs nothing).
TEST(CompressionRun, OverAParameterServerEmptyShardsTakeNoPart) {
  // Top-k at density 0.5: round(0.5 x 1) = 1 pair (2 words) pushed, the 1-element shard pulled
  // dense: 3 words, 12 bytes a shard, 36 bytes. 1-bit: 1 scale and 1 word of signs pushed and the
  // same pulled: 4 words, 16 bytes a shard, 48 bytes.
  for (auto [kind, wire_bytes] : {std::pair{CompressionKind::kTopk, 3 * 12.0},
                                  std::pair{CompressionKind::kOnebit, 3 * 16.0}}) {
    SCOPED_TRACE(core::compression_name(kind));
    core::Plan p = testing::collective_plan(testing::switch_cluster(2, 1.25e9, 5e-6),
                                            core::StrategyKind::kPs, 2, 3);
    p.strategy.ps_servers = 4;
    p.training.steps = 2;
    p.training.compression.kind = kind;
    p.training.compression.density = 0.5;
    core::RunResult r = run_local(p, quick());
    EXPECT_EQ(r.wrong, 0);
    EXPECT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.servers, 4);
    ASSERT_TRUE(r.compression);
    EXPECT_DOUBLE_EQ(r.compression->wire_bytes, wire_bytes);
    EXPECT_DOUBLE_EQ(r.compression->wire_bytes_uncompressed, 2 * 3 * 4.0);  // dense push and pull
  }
}

// GRACE's exchange of quantized codes: every worker's encoded bucket all-gathered, each worker
// decoding and adding them all.
TEST(CompressionRun, AllGatheredCodesMatchTheReferenceExactly) {
  for (CompressionKind kind : {CompressionKind::kOnebit, CompressionKind::kQuantize})
    for (int n : {3, 4}) {
      SCOPED_TRACE(std::string(core::compression_name(kind)) + " n=" + std::to_string(n));
      core::Plan p = compressed_plan(kind, n, true);
      p.training.compression.bits = 4;
      p.training.compression.allgather = true;
      run_checked(p);
    }
  core::Plan p = compressed_plan(CompressionKind::kOnebit, 3, false);
  p.training.compression.allgather = true;
  expect_caught_without_error_feedback(p);
  // signSGD with majority vote: the n workers' signs counted on every worker.
  for (int n : {3, 4}) {
    SCOPED_TRACE("majority vote n=" + std::to_string(n));
    core::Plan vote = compressed_plan(CompressionKind::kOnebit, n, true);
    vote.training.compression.allgather = vote.training.compression.majority_vote = true;
    vote.training.compression.error_feedback = false;
    run_checked(vote);
  }
}

// QSGD's and CGX's codes of 2 and 4 bits in 1-bit Adam's compressed all-reduce, and over the
// parameter server.
TEST(CompressionRun, QuantizedToTwoAndFourBitsMatchesTheReferenceExactly) {
  for (int bits : {2, 4})
    for (bool ps : {false, true}) {
      SCOPED_TRACE(std::to_string(bits) + " bits" + (ps ? " over the ps" : ""));
      core::Plan p = ps ? compressed_ps_plan(CompressionKind::kQuantize, true)
                        : compressed_plan(CompressionKind::kQuantize, 4, true);
      p.training.compression.bits = bits;
      run_checked(p);
    }
}

}  // namespace
}  // namespace scaleout::exec
