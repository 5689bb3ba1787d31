// Delay-compensated asynchronous SGD (DC-ASGD): the server program's update against a hand
// computation on 3 workers, the replay the executed check uses, what it costs, and refusals.
#include "core/codecs/delay_compensation.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <limits>
#include <utility>

#include "core/plan/plan_stamp.hpp"
#include "core/plan/plan_writer.hpp"
#include "core/programs/strategies/ps_protocol.hpp"
#include "core/programs/strategies/ps_server.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

// A fabric holding one float per element, fed a script of messages (each with the gradient value
// it carries); it records the parameters the server sends.
class ScriptedFabric : public Fabric, public Device, public Mailbox {
 public:
  ScriptedFabric(int rank, std::size_t words) : rank_(rank), words_(words, 0.0f) {}
  void add(const Message& m, float gradient) { script_.push_back({m, gradient}); }

  int rank() const override { return rank_; }
  int size() const override { return rank_ + 1; }
  Handle post_send(int, Span) override { return 0; }
  Handle post_recv(int, Span, Combine) override { return 0; }
  void wait_all(const std::vector<Handle>&) override {}
  Device& device() override { return *this; }
  Mailbox* mailbox_if_any() override { return this; }
  void send_message(int peer, const Message& m) override {
    sent.push_back({peer, m.a, words_[static_cast<std::size_t>(m.data.begin)]});
  }
  Message receive_message() override {
    auto [m, g] = script_.front();
    script_.pop_front();
    held_.assign(static_cast<std::size_t>(m.data.count), g);
    return m;
  }
  void accept_data(Combine) override { ADD_FAILURE() << "a compensating server adds nothing"; }
  void local_work(double, const WordsFn& apply) override { apply(words_.data()); }
  void accept_update(double, const UpdateFn& apply) override { apply(words_.data(), held_.data()); }
  void idle(double) override {}
  void compute(double) override {}
  double now() override { return 0; }

  struct Sent {
    int peer;
    std::int64_t version;
    float value;
  };
  std::vector<Sent> sent;
  float parameter() const { return words_[0]; }

 private:
  int rank_;
  std::vector<float> words_;
  std::vector<float> held_;
  std::deque<std::pair<Message, float>> script_;
};

class Staleness : public TrainingObserver {
 public:
  void worker_step(int, int, double, double, double, double) override {}
  void applied(int, int worker, int staleness, double) override {
    seen.push_back({worker, staleness});
  }
  void dropped(int, double) override {}
  void version_done(int, std::int64_t, double) override {}
  void left(int, int, double) override {}
  std::vector<AppliedGradient> seen;
};

TEST(DelayCompensation, TheServerProgramMatchesAHandComputationOnThreeWorkers) {
  // One element; workers 0, 1, 2 push gradients 1, 2, -1; lambda 0.5, learning rate 0.1.
  // Everyone pulls version 0 (w = 0). Then, by hand, w -= 0.1 (g + 0.5 g^2 (w - pulled)):
  //   w0 pushes (pulled 0, w 0):          w = -0.1                         then pulls -0.1
  //   w1 pushes (pulled 0, w -0.1):        w = -0.1 - 0.1 (2 + 2 (-0.1))   = -0.28
  //   w2 pushes (pulled 0, w -0.28):       w = -0.28 - 0.1 (-1 - 0.14)     = -0.166
  //   w0 pushes (pulled -0.1, w -0.166):   w = -0.166 - 0.1 (1 - 0.033)    = -0.2627
  const int server = 3;
  ScriptedFabric fabric(server, 1 + 3);  // the shard's element, then one pulled copy per worker
  Span shard{0, 1};
  for (int w = 0; w < 3; ++w) fabric.add(ps::pull(w, 0), 0);
  fabric.add(ps::push(0, 0, 0, shard, true), 1);
  fabric.add(ps::push(1, 0, 0, shard, true), 2);
  fabric.add(ps::push(2, 0, 0, shard, true), -1);
  fabric.add(ps::push(0, 1, 1, shard, false), 1);
  Staleness observer;
  PsRules async;  // aggregate 1, no bound
  ServerShard shard_server(fabric, observer, async, 3, 0, shard, 4,
                           std::numeric_limits<std::int64_t>::max());
  CompensationCost cost;
  cost.lambda = 0.5;
  cost.learning_rate = 0.1;
  shard_server.compensate(cost, 1, 1);
  shard_server.run();
  EXPECT_NEAR(fabric.parameter(), -0.2627, 1e-6);
  // What each pull got: version 0 three times, then versions 1, 2, 3 with the values above.
  ASSERT_EQ(fabric.sent.size(), 6u);
  EXPECT_NEAR(fabric.sent[3].value, -0.1, 1e-7);
  EXPECT_NEAR(fabric.sent[4].value, -0.28, 1e-7);
  EXPECT_NEAR(fabric.sent[5].value, -0.166, 1e-7);
  EXPECT_EQ(fabric.sent[5].version, 3);
  ASSERT_EQ(observer.seen.size(), 4u);
  EXPECT_EQ(observer.seen[1].staleness, 1);
  EXPECT_EQ(observer.seen[3].staleness, 2);
  // The replay the executed runs check against gives the same parameter from the same sequence.
  DelayCompensation dc{true, 0.5, 0.1, 0};
  float g[3] = {1, 2, -1};
  auto replayed =
      replay_compensated_shard(dc, 1, observer.seen, [&](int w, std::int64_t) { return g[w]; });
  EXPECT_EQ(replayed[0], fabric.parameter());
}

TEST(DelayCompensation, LambdaZeroIsPlainSgdAndAnImpossibleStalenessIsRefused) {
  DelayCompensation dc{true, 0.0, 0.5, 0};
  auto w = replay_compensated_shard(
      dc, 2, {{0, 0}, {1, 1}, {0, 2}},
      [](int worker, std::int64_t i) { return static_cast<float>(worker + 1) * (i + 1); });
  EXPECT_FLOAT_EQ(w[0], -0.5f * (1 + 2 + 1));
  EXPECT_FLOAT_EQ(w[1], -0.5f * (2 + 4 + 2));
  EXPECT_THROW(replay_compensated_shard(dc, 1, {{0, 1}}, [](int, std::int64_t) { return 1.0f; }),
               std::invalid_argument);
}

TEST(DelayCompensation, CostsScaleWithTheLargestShardAndTheWorkers) {
  Plan plan;
  plan.workload.parameters = 10000001;  // 3 shards: 3,333,334 + 3,333,334 + 3,333,333
  plan.training.workers = 16;
  plan.strategy.kind = StrategyKind::kPs;
  plan.strategy.ps_mode = PsMode::kAsync;
  plan.strategy.ps_servers = 3;
  EXPECT_FALSE(compensation_cost(plan));
  plan.strategy.delay_compensation.on = true;
  plan.cluster.host.compensate_rate = 1e9;
  auto c = compensation_cost(plan);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->update_s, 3333334 / 1e9);
  EXPECT_DOUBLE_EQ(c->pulled_bytes, 3333334.0 * 4 * 16);
  EXPECT_EQ(compensation_scratch_words(plan, 10000001, 3), 3333334 * 16);
}

TEST(DelayCompensation, SavedPlansRoundTripAndStampIt) {
  std::string cluster =
      std::string(testing::kInlineCluster) + "  host: { compensate_rate: 2G/s }\n";
  Plan p = testing::load_text(
      "save",
      cluster + testing::kInlineWorkload +
          "strategy:\n  kind: ring\n  ps: { mode: async, delay_compensation: { lambda: "
          "0.1, learning_rate: 0.5 } }\ntraining: { workers: 4 }\n",
      PlanOverrides{.strategy = StrategyKind::kPs});
  ASSERT_EQ(p.strategy.kind, StrategyKind::kPs);
  Plan back = testing::load_text("back", plan_to_yaml(p));
  EXPECT_TRUE(back.strategy.delay_compensation.on);
  EXPECT_EQ(back.strategy.delay_compensation.lambda, 0.1);
  EXPECT_EQ(back.strategy.delay_compensation.learning_rate, 0.5);
  EXPECT_EQ(back.cluster.host.compensate_rate, 2e9);
  Plan plain = p;
  plain.strategy.delay_compensation = DelayCompensation{};
  EXPECT_NE(plan_stamp(p).hash, plan_stamp(plain).hash);
}

using testing::expect_refused;
using testing::Refusal;

std::string plan_with(const std::string& rest) {
  return std::string(testing::kInlineCluster) + testing::kInlineWorkload + rest;
}

class CompensationRefused : public ::testing::TestWithParam<Refusal> {};

TEST_P(CompensationRefused, NamesFileLineAndWhy) {
  const Refusal& r = GetParam();
  expect_refused(r.name, r.yaml, r.line, r.expect);
}

const std::string kWorkers = "training: { workers: 4 }\n";

INSTANTIATE_TEST_SUITE_P(
    Plans, CompensationRefused,
    ::testing::Values(
        Refusal{
            "on_sync_ps",
            plan_with("strategy: { kind: ps, delay_compensation: { lambda: 0.04 } }\n" + kWorkers),
            9, "applies to mode: async"},
        Refusal{"negative_lambda",
                plan_with("strategy:\n  kind: ps\n  mode: async\n  delay_compensation:\n"
                          "    lambda: -0.1\n" +
                          kWorkers),
                13, "0 or more"},
        Refusal{"zero_learning_rate",
                plan_with("strategy: { kind: ps, mode: async,\n"
                          "  delay_compensation: { learning_rate: 0 } }\n" +
                          kWorkers),
                10, "must be positive"},
        Refusal{
            "not_a_mapping",
            plan_with("strategy: { kind: ps, mode: async, delay_compensation: yes }\n" + kWorkers),
            9, "expected a mapping"},
        Refusal{
            "unknown_key",
            plan_with("strategy: { kind: ps, mode: async, delay_compensation: { lamda: 1 } }\n" +
                      kWorkers),
            9, "lamda"},
        Refusal{"on_a_ring",
                plan_with("strategy: { kind: ring, delay_compensation: { lambda: 0.04 } }\n" +
                          kWorkers),
                9, "does not apply to kind ring"},
        Refusal{"fp16_gradients",
                plan_with("strategy: { kind: ps, mode: async, delay_compensation: {} }\n"
                          "training: { workers: 4, gradient_precision: fp16 }\n"),
                9, "fp32"},
        Refusal{"bad_rate",
                std::string(testing::kInlineCluster) + "  host: { compensate_rate: fast }\n" +
                    testing::kInlineWorkload +
                    "strategy: { kind: ps, mode: async, delay_compensation: {} }\n" + kWorkers,
                8, "elements per second"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace scaleout::core
