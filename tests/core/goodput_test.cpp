// Goodput under random failures: the closed form against sampled runs and against the published
// first-order forms (Young 1974; Kokolis et al. 2024's ETTR), the job's failure rate counted by
// hand, checkpoint sizes from a split worked out by hand, and the refusals of bad input.
#include "core/reliability/goodput.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/plan/plan_writer.hpp"
#include "core/reliability/checkpoint_size.hpp"
#include "core/reliability/reliability_result.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

constexpr double kHour = 3600, kDay = 86400;

TEST(Goodput, WithoutFailuresTheRunIsItsWorkAndItsCheckpointStalls) {
  GoodputInputs in{10000, 1000, 10, 10, 600, 0};
  ReliabilityOutcome o = expected_run(in);
  EXPECT_DOUBLE_EQ(o.time_to_train_s, 10000 + 10 * 10);  // ten segments, each with its stall
  EXPECT_DOUBLE_EQ(o.failures, 0);
  EXPECT_DOUBLE_EQ(o.checkpoint_s, 100);
  EXPECT_DOUBLE_EQ(o.goodput, 10000.0 / 10100);
  EXPECT_DOUBLE_EQ(sampled_wall_time(in, 7), 10100);
  EXPECT_EQ(best_checkpoint_interval(in, 1), 0);  // nothing to win from checkpoints
}

TEST(Goodput, ClosedFormIsTheMeanOfSampledRuns) {
  // A month of work, hourly checkpoints of a minute, 10-minute restarts, a failure every 5 hours.
  GoodputInputs in{30 * kDay, kHour, 60, 60, 600, 5 * kHour};
  ReliabilityOutcome o = expected_run(in);
  double sum = 0;
  const int runs = 2000;
  for (int k = 0; k < runs; ++k) sum += sampled_wall_time(in, 1000 + k);
  // Each run sums ~720 segments: the mean of 2,000 has a relative spread near 0.02 %.
  EXPECT_NEAR(sum / runs / o.time_to_train_s, 1.0, 0.003) << o.time_to_train_s;
  EXPECT_GT(o.failures, 100);
  EXPECT_NEAR(o.work_s + o.checkpoint_s + o.restart_s + o.lost_work_s, o.time_to_train_s, 1e-6);
}

// Hot spares. Without any, every failure waits its node's whole repair: in expectation the run
// without repairs plus one repair a failure, and the sampled runs' mean agrees. With more spares
// than ever fail together, no failure waits: sampled run for sampled run the same as without
// repairs.
TEST(Goodput, WithoutSparesEveryFailureWaitsTheRepair) {
  GoodputInputs bare{30 * kDay, kHour, 60, 60, 600, 5 * kHour};
  GoodputInputs waits = bare;
  waits.repair_s = 2 * kHour;
  ReliabilityOutcome o = expected_run(waits), without = expected_run(bare);
  EXPECT_NEAR(o.failures, without.failures, 1e-9 * o.failures);  // waits are not failure-prone
  EXPECT_NEAR(o.node_wait_s, o.failures * 2 * kHour, 1e-6 * o.node_wait_s);
  EXPECT_NEAR(o.time_to_train_s, without.time_to_train_s + o.node_wait_s, 1e-9 * o.time_to_train_s);
  double sum = 0;
  for (int k = 0; k < 400; ++k) sum += sampled_wall_time(waits, 100 + k);
  EXPECT_NEAR(sum / 400 / o.time_to_train_s, 1.0, 0.01);
  GoodputInputs plenty = waits;
  plenty.spares = 50;  // 0.4 failures a repair time on average
  EXPECT_NEAR(expected_run(plenty).time_to_train_s, expected_run(bare).time_to_train_s, 1e-6);
  for (std::uint64_t seed : {1, 2, 3})
    EXPECT_DOUBLE_EQ(sampled_wall_time(plenty, seed), sampled_wall_time(bare, seed));
}

// Between those, the closed form's Erlang B wait against runs that track every node away: one
// spare, a failure every 5 hours and 2-day repairs (about 10 failures a repair time), so most
// failures find no spare; and two spares with 5-hour repairs, where a few do.
TEST(Goodput, SparesWaitIsTheMeanOfSampledRuns) {
  auto mean_over_runs = [](const GoodputInputs& in) {
    double sum = 0;
    const int runs = 400;
    for (int k = 0; k < runs; ++k) sum += sampled_wall_time(in, 5000 + k);
    return sum / runs;
  };
  GoodputInputs two{30 * kDay, kHour, 60, 60, 600, 5 * kHour};
  two.repair_s = 5 * kHour;
  two.spares = 2;
  ReliabilityOutcome o2 = expected_run(two);
  EXPECT_GT(o2.node_wait_s, 0);
  EXPECT_NEAR(mean_over_runs(two) / o2.time_to_train_s, 1.0, 0.01) << o2.time_to_train_s;
  GoodputInputs in{30 * kDay, kHour, 60, 60, 600, 5 * kHour};
  in.repair_s = 2 * kDay;
  in.spares = 1;
  ReliabilityOutcome o = expected_run(in);
  EXPECT_NEAR(mean_over_runs(in) / o.time_to_train_s, 1.0, 0.01) << o.time_to_train_s;
  // B(1, a) = a / (1 + a) of the failures wait, repair / 2 each.
  double a = 2 * kDay / (5 * kHour);
  EXPECT_NEAR(o.node_wait_s, o.failures * a / (1 + a) * kDay, 1e-6 * o.node_wait_s);
  // Sixteen spares under 24 failures a repair time (Llama 3's rate, 2-day repairs): a cluster that
  // barely keeps up, where the closed form's time runs 1.6 % long: it takes the load the spares see
  // as steady.
  GoodputInputs many{30 * kDay, kHour, 60, 60, 600, 6492};
  many.repair_s = 2 * kDay;
  many.spares = 16;
  EXPECT_NEAR(mean_over_runs(many) / expected_run(many).time_to_train_s, 1.0, 0.025);
}

// Restarts fail too (Daly 2006's complete model): with 1-hour restarts and a failure every 5 hours,
// a segment of L takes M exp(R / M) (exp(L / M) - 1), worked out here, and the runs that replay
// every failure, those during restarts included, agree in the mean.
TEST(Goodput, RestartsFailTooAsDalysCompleteModelHasIt) {
  const double m = 5 * kHour, r = kHour, length = kHour + 60;
  GoodputInputs in{30 * kDay, kHour, 60, 60, r, m};
  ReliabilityOutcome o = expected_run(in);
  EXPECT_NEAR(o.time_to_train_s, 720 * m * std::exp(r / m) * std::expm1(length / m),
              1e-9 * o.time_to_train_s);
  EXPECT_NEAR(o.failures, 720 * std::expm1(length / m) * std::exp(r / m), 1e-9 * o.failures);
  double sum = 0;
  for (int k = 0; k < 400; ++k) sum += sampled_wall_time(in, 300 + k);
  EXPECT_NEAR(sum / 400 / o.time_to_train_s, 1.0, 0.01);
  // A restart 100 times the MTBF never finishes: infinite in both, at once.
  GoodputInputs never = in;
  never.restart_s = 100 * m;
  EXPECT_TRUE(std::isinf(expected_run(never).time_to_train_s));
  EXPECT_TRUE(std::isinf(sampled_wall_time(never, 1)));
}

// Slow nodes without failures: one slowdown an hour for the job, half an hour each on average, at
// half pace. Nodes slow at once are Poisson with mean 0.5, so the job is at full pace exp(-0.5) of
// the time and its mean pace is exp(-0.5) + (1 - exp(-0.5)) / 2 = 0.8033: 30 days of work take
// 37.35 days. The sampled runs draw every slowdown; their mean is within 1 %.
TEST(Goodput, SlowNodesStretchTheWorkByTheirMeanPace) {
  GoodputInputs in{30 * kDay, 0, 0, 0, 0, 0};
  in.slow = {1 / kHour, 0.5 * kHour, 0.5};
  double pace = std::exp(-0.5) + (1 - std::exp(-0.5)) * 0.5;
  ReliabilityOutcome o = expected_run(in);
  EXPECT_NEAR(o.time_to_train_s, 30 * kDay / pace, 1e-9 * o.time_to_train_s);
  EXPECT_NEAR(o.slow_s, 30 * kDay / pace - 30 * kDay, 1e-6);
  EXPECT_NEAR(o.goodput, pace, 1e-12);
  EXPECT_DOUBLE_EQ(o.lost_work_s, 0);
  double sum = 0;
  for (int k = 0; k < 200; ++k) sum += sampled_wall_time(in, 40 + k);
  EXPECT_NEAR(sum / 200 / o.time_to_train_s, 1.0, 0.01);
  // Never slower than every hour at half pace, never faster than no slowdown.
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    double wall = sampled_wall_time(in, seed);
    EXPECT_GT(wall, 30 * kDay);
    EXPECT_LT(wall, 60 * kDay);
  }
}

// With failures and checkpoints too (the work of each segment stretched, checkpoints and restarts
// not), the closed form stays the mean of the sampled runs within 2 %.
TEST(Goodput, SlowNodesAndFailuresTogetherAreTheMeanOfSampledRuns) {
  GoodputInputs in{30 * kDay, kHour, 60, 60, 600, 10 * kHour};
  in.slow = {1 / (2 * kHour), kHour, 0.25};
  ReliabilityOutcome o = expected_run(in);
  GoodputInputs steady = in;
  steady.slow = {};
  EXPECT_GT(o.time_to_train_s, expected_run(steady).time_to_train_s);
  double sum = 0;
  for (int k = 0; k < 300; ++k) sum += sampled_wall_time(in, 900 + k);
  EXPECT_NEAR(sum / 300 / o.time_to_train_s, 1.0, 0.02);
}

TEST(Goodput, AgreesWithKokolisFirstOrderEttrWhereFailuresAreRare) {
  // Kokolis et al. (arXiv 2410.21680): ETTR ~ (1 - (u0 + dt/2) / MTTF) / (1 + w / dt) for a
  // checkpoint every dt = 1 h writing w = 1 min, restarts of u0 = 5 min, MTTF = 100 h.
  double dt = kHour, w = 60, u0 = 300, mttf = 100 * kHour;
  double first_order = (1 - (u0 + dt / 2) / mttf) / (1 + w / dt);
  GoodputInputs in{365 * kDay, dt, w, w, u0, mttf};
  EXPECT_NEAR(expected_goodput(in, dt), first_order, 0.002);
}

TEST(Goodput, BestIntervalIsYoungsWhereFailuresAreRare) {
  // Young (1974): sqrt(2 x cost x MTBF), first order in cost / MTBF (here 6e-5).
  GoodputInputs in{365 * kDay, kHour, 60, 60, 600, 1e6};
  double young = std::sqrt(2 * 60 * 1e6);
  double best = best_checkpoint_interval(in, 1);
  EXPECT_NEAR(best / young, 1.0, 0.05) << best;
  // The search's interval beats its neighbours on the closed form's own curve.
  EXPECT_GE(expected_goodput(in, best), expected_goodput(in, best * 1.1));
  EXPECT_GE(expected_goodput(in, best), expected_goodput(in, best / 1.1));
}

TEST(Goodput, AsynchronousWriteLosesTheSegmentItWasSaving) {
  // The same write, but beside training: goodput rises by the stall and the sampled runs agree
  // with the closed form's first-order charge for a failure during the write.
  GoodputInputs sync{30 * kDay, kHour, 300, 300, 600, 5 * kHour};
  GoodputInputs async = sync;
  async.stall_s = 5;
  EXPECT_GT(expected_run(async).goodput, expected_run(sync).goodput + 0.05);
  double sum = 0;
  for (int k = 0; k < 1000; ++k) sum += sampled_wall_time(async, k);
  EXPECT_NEAR(sum / 1000 / expected_run(async).time_to_train_s, 1.0, 0.01);
}

// Two 8-device nodes (lines 1-7), a workload, then `rest`.
std::string plan_with(const std::string& rest) {
  return std::string(testing::kInlineCluster) + testing::kInlineWorkload +
         "strategy: { kind: ring }\ntraining: { workers: 16 }\n" + rest;
}

TEST(Goodput, JobFailureRateCountsEveryDeviceNodeAndLink) {
  Plan plan = testing::load_text(
      "goodput-rate",
      plan_with("reliability: { gpu_mtbf: 1000h, node_mtbf: 500h, link_mtbf: 2000h, "
                "train_steps: 1000 }\n"));
  // 16 devices, 2 nodes, one NIC each.
  double expected = 16 / (1000 * kHour) + 2 / (500 * kHour) + 2 / (2000 * kHour);
  EXPECT_DOUBLE_EQ(job_failure_rate(plan), expected);
  ReliabilityOutcome o = reliability_outcome(plan, 1.0);
  EXPECT_NEAR(o.job_mtbf_s, 1 / expected, 1e-6);
  EXPECT_DOUBLE_EQ(o.work_s, 1000);
  EXPECT_EQ(o.samples, 100);
  EXPECT_LE(o.time_to_train_p10_s, o.time_to_train_p50_s);
  EXPECT_LE(o.time_to_train_p50_s, o.time_to_train_p90_s);
}

// A transformer (8 layers, hidden 2048, 32,000 words, 1,024 positions, learned) on one node:
// tensor 2, data 4, with ZeRO `zero`, storage at 10 GB/s each way and 25 GB/s to host memory.
Plan transformer_plan(int zero, const std::string& checkpoint) {
  return testing::load_text(
      "goodput-size-" + std::to_string(zero),
      "cluster:\n  name: c\n  devices_per_node: 8\n  device: { name: X, flops: 100TFLOPS }\n"
      "  intra_node: { bandwidth: 100GB/s, latency: 1us }\n"
      "  nic: { bandwidth: 100Gbps, latency: 2us }\n"
      "  storage: { write_bandwidth: 10GB/s, read_bandwidth: 10GB/s, host_copy_bandwidth: "
      "25GB/s }\n"
      "workload:\n  name: gpt\n"
      "  transformer: { layers: 8, hidden: 2048, heads: 16, sequence: 1024, vocabulary: 32000 }\n"
      "parallelism: { tensor: 2, zero: " +
          std::to_string(zero) +
          " }\n"
          "strategy: { kind: ring }\n"
          "training: { workers: 8, global_batch: 8 }\n"
          "reliability: { node_mtbf: 100d, train_steps: 1M }\n" +
          checkpoint);
}

TEST(CheckpointSize, OneCopyOfWeightsAndAdamStatesByTensorRank) {
  // Each tensor rank: 8 layers of (12 h^2 + 13 h) / 2 = 201,433,088, the word embedding / 2 =
  // 32,768,000 and its own copy of the positions, 2,097,152: 236,298,240 parameters, 14 bytes
  // each (16-bit weights, fp32 master, momentum, variance). Both tensor ranks write theirs.
  const double per_rank = 236298240.0;
  CheckpointSize plain = checkpoint_size(transformer_plan(0, ""));
  EXPECT_DOUBLE_EQ(plain.bytes, 2 * 14 * per_rank);
  EXPECT_DOUBLE_EQ(plain.busiest_rank, 14 * per_rank);
  EXPECT_DOUBLE_EQ(plain.read_bytes, 8 * 14 * per_rank);  // all 8 ranks read what they hold
  // ZeRO-1 shards the optimizer states over the 4 data ranks: the same bytes, spread out.
  CheckpointSize sharded = checkpoint_size(transformer_plan(1, ""));
  EXPECT_DOUBLE_EQ(sharded.bytes, plain.bytes);
  EXPECT_DOUBLE_EQ(sharded.busiest_rank, 2 * per_rank + 12 * per_rank / 4);
}

TEST(CheckpointSize, RankByRankWhoWritesWhat) {
  const double per_rank = 236298240.0;
  // Without ZeRO ranks 0 and 1 (data rank 0's tensor ranks) write all 14 bytes a parameter;
  // every rank reads back all it holds.
  std::vector<RankCheckpoint> plain = checkpoint_by_rank(transformer_plan(0, ""));
  ASSERT_EQ(plain.size(), 8u);
  for (int r = 0; r < 8; ++r) {
    EXPECT_DOUBLE_EQ(plain[r].write, r < 2 ? 14 * per_rank : 0) << r;
    EXPECT_DOUBLE_EQ(plain[r].read, 14 * per_rank) << r;
  }
  // ZeRO-1: every rank writes its quarter of the Adam states, ranks 0 and 1 the weights too.
  std::vector<RankCheckpoint> sharded = checkpoint_by_rank(transformer_plan(1, ""));
  for (int r = 0; r < 8; ++r) {
    EXPECT_DOUBLE_EQ(sharded[r].write, 3 * per_rank + (r < 2 ? 2 * per_rank : 0)) << r;
    EXPECT_DOUBLE_EQ(sharded[r].read, 5 * per_rank) << r;
  }
}

// The ranks' parts add up to checkpoint_size's totals, experts and ZeRO-3 included (DeepSeek-V2-
// Lite on 8 expert ranks).
TEST(CheckpointSize, RanksAddUpToTheTotalsWithExperts) {
  Plan plan =
      load_plan(testing::source_path("experiments/model-parallel/deepseek-v2-lite-h100.yaml"));
  ASSERT_GT(plan.parallelism->expert, 1);
  for (int zero : {0, 1, 3}) {
    plan.parallelism->zero = zero;
    CheckpointSize total = checkpoint_size(plan);
    double written = 0, read = 0, busiest = 0;
    for (const RankCheckpoint& r : checkpoint_by_rank(plan)) {
      written += r.write;
      read += r.read;
      busiest = std::max(busiest, r.write);
    }
    EXPECT_NEAR(written / total.bytes, 1, 1e-12) << "ZeRO-" << zero;
    EXPECT_NEAR(read / total.read_bytes, 1, 1e-12) << "ZeRO-" << zero;
    EXPECT_NEAR(busiest / total.busiest_rank, 1, 1e-12) << "ZeRO-" << zero;
  }
}

TEST(CheckpointSize, StorageRatesSetTheStallAndAsynchronousCopiesStallLess) {
  const double per_rank = 236298240.0;
  Plan sync = transformer_plan(0, "checkpoint: { every: 100, restart: 5min }\n");
  CheckpointTimes t = checkpoint_times(sync, checkpoint_size(sync));
  // Without ZeRO the two ranks of data rank 0 write, both on the one node: 6.6 GB over the
  // storage's 10 GB/s takes longer than over the node's 100 Gb/s NIC (12.5 GB/s).
  EXPECT_DOUBLE_EQ(t.stall_s, 2 * 14 * per_rank / 10e9);
  // Reading back, all 8 ranks read 3.3 GB each: 26.5 GB over 10 GB/s.
  EXPECT_DOUBLE_EQ(t.read_s, 8 * 14 * per_rank / 10e9);
  EXPECT_DOUBLE_EQ(t.write_s, t.stall_s);
  Plan async =
      transformer_plan(0, "checkpoint: { every: 100, restart: 5min, asynchronous: true }\n");
  CheckpointTimes a = checkpoint_times(async, checkpoint_size(async));
  EXPECT_DOUBLE_EQ(a.stall_s, 14 * per_rank / 25e9);
  EXPECT_DOUBLE_EQ(a.write_s, t.write_s);
  EXPECT_GT(reliability_outcome(async, 1.0).goodput, reliability_outcome(sync, 1.0).goodput);
}

TEST(Goodput, ResultKeysRoundTrip) {
  ReliabilityOutcome o = reliability_outcome(
      transformer_plan(1, "checkpoint: { every: 30min, restart: 5min }\n"), 2.0);
  EXPECT_DOUBLE_EQ(o.checkpoint_interval_s, 1800);  // 900 steps of 2 s
  nlohmann::json j = {{"reliability", reliability_to_json(o)}};
  auto back = reliability_from_json(j);
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(back->goodput, o.goodput);
  EXPECT_DOUBLE_EQ(back->best_checkpoint_interval_s, o.best_checkpoint_interval_s);
  EXPECT_DOUBLE_EQ(back->time_to_train_p90_s, o.time_to_train_p90_s);
  EXPECT_EQ(back->samples, o.samples);
}

TEST(Goodput, PlanWriterKeepsStorageCheckpointAndRates) {
  Plan p = transformer_plan(1, "checkpoint: { every: 30min, restart: 5min, asynchronous: true }\n");
  p.reliability->repair = 2 * kDay;
  p.reliability->hot_spares = 3;
  p.reliability->slow_mtbf = 30 * kDay;
  p.reliability->slow_speed = 0.5;
  p.reliability->slow_for = 2 * kHour;
  testing::TempDir dir("goodput-writer");
  Plan again = load_plan(dir.write("again.yaml", plan_to_yaml(p)));
  EXPECT_EQ(plan_to_yaml(again), plan_to_yaml(p));
  EXPECT_DOUBLE_EQ(again.cluster.storage.host_copy_bandwidth, 25e9);
  EXPECT_TRUE(again.resilience.checkpoint_asynchronous);
  EXPECT_FALSE(again.resilience.checkpoint_cost_given);
  EXPECT_DOUBLE_EQ(again.reliability->repair, 2 * kDay);
  EXPECT_EQ(again.reliability->hot_spares, 3);
  EXPECT_DOUBLE_EQ(again.reliability->slow_for, 2 * kHour);
  EXPECT_GT(reliability_outcome(again, 2.0).slow_s, 0);
  EXPECT_DOUBLE_EQ(reliability_outcome(again, 2.0).goodput, reliability_outcome(p, 2.0).goodput);
}

class ReliabilityRefusals : public ::testing::TestWithParam<testing::Refusal> {};

TEST_P(ReliabilityRefusals, NameFileLineAndField) {
  const testing::Refusal& r = GetParam();
  testing::expect_refused(std::string("reliability-") + r.name, r.yaml, r.line, r.expect);
}

INSTANTIATE_TEST_SUITE_P(
    Plans, ReliabilityRefusals,
    ::testing::Values(
        testing::Refusal{"zero_mtbf", plan_with("reliability: { node_mtbf: 0, train_steps: 9 }\n"),
                         11, "reliability.node_mtbf"},
        testing::Refusal{"negative_mtbf",
                         plan_with("reliability: { gpu_mtbf: -5h, train_steps: 9 }\n"), 11,
                         "reliability.gpu_mtbf"},
        testing::Refusal{"no_rate", plan_with("reliability: { train_steps: 9 }\n"), 11,
                         "give at least one of gpu_mtbf"},
        testing::Refusal{"no_length", plan_with("reliability: { node_mtbf: 100d }\n"), 11,
                         "the run's length"},
        testing::Refusal{"tokens_without_transformer",
                         plan_with("reliability: { node_mtbf: 100d, train_tokens: 1T }\n"), 11,
                         "needs a transformer"},
        testing::Refusal{"zero_interval",
                         plan_with("reliability: { node_mtbf: 100d, train_steps: 9 }\n"
                                   "checkpoint: { every: 0, cost: 1s }\n"),
                         12, "checkpoint.every"},
        testing::Refusal{"no_storage",
                         plan_with("reliability: { node_mtbf: 100d, train_steps: 9 }\n"
                                   "checkpoint: { every: 10 }\n"),
                         12, "storage.write_bandwidth"},
        testing::Refusal{"time_interval_without_rates", plan_with("checkpoint: { every: 1h }\n"),
                         11, "needs failure rates"},
        testing::Refusal{"spares_without_repair",
                         plan_with("reliability: { node_mtbf: 100d, train_steps: 9, "
                                   "hot_spares: 2 }\n"),
                         11, "reliability.hot_spares"},
        testing::Refusal{"negative_spares",
                         plan_with("reliability: { node_mtbf: 100d, train_steps: 9, repair: 2d, "
                                   "hot_spares: -1 }\n"),
                         11, "reliability.hot_spares"},
        testing::Refusal{"slow_without_speed",
                         plan_with("reliability: { node_mtbf: 100d, train_steps: 9, slow_mtbf: "
                                   "30d, slow_for: 2h }\n"),
                         11, "reliability.slow_speed"},
        testing::Refusal{"slow_speed_above_one",
                         plan_with("reliability: { node_mtbf: 100d, train_steps: 9, slow_mtbf: "
                                   "30d, slow_speed: 1.5, slow_for: 2h }\n"),
                         11, "reliability.slow_speed"}));

}  // namespace
}  // namespace scaleout::core
