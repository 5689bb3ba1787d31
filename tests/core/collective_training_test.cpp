// The collective training program: what it asks of the fabric, in which order, and what overlap
// buys, on a fabric with a clock of its own; and exact sums over steps on real floats.
#include "core/programs/strategies/collective_training.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/memory_fabric.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

// One rank on a clock: a FLOP of compute and an element exchanged each take a second. Compute
// queued with compute_async runs on its own stream, beside the exchanges.
class ClockFabric : public Fabric, public Device {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Handle post_send(int, Span) override { return 0; }
  Handle post_recv(int, Span, Combine) override { return 0; }
  void wait_all(const std::vector<Handle>&) override {}
  Device& device() override { return *this; }
  Mailbox* mailbox_if_any() override { return nullptr; }
  void idle(double seconds) override { clock += seconds; }
  void compute(double flops) override { clock += flops; }
  ComputeTicket compute_async(double flops) override {
    stream_end = std::max(stream_end, clock) + flops;
    done_at.push_back(stream_end);
    return static_cast<ComputeTicket>(done_at.size() - 1);
  }
  double wait_compute(ComputeTicket t) override {
    calls.push_back("wait " + std::to_string(t));
    clock = std::max(clock, done_at[t]);
    return done_at[t];
  }
  void produce_gradient(Span span) override {
    calls.push_back("produce " + std::to_string(span.begin));
  }
  void end_bucket() override { calls.push_back("end bucket"); }
  void mark_step(int step) override { calls.push_back("step " + std::to_string(step)); }
  double now() override { return clock; }

  double clock = 0, stream_end = 0;
  std::vector<double> done_at;
  std::vector<std::string> calls;
};

// Exchanging a bucket takes as many seconds as it has elements.
class TimedExchange : public StrategyProgram {
 public:
  void run(Fabric& fabric, Span bucket) override {
    static_cast<ClockFabric&>(fabric).calls.push_back("exchange " + std::to_string(bucket.begin));
    fabric.device().idle(static_cast<double>(bucket.count));
  }
  std::string describe() const override { return "timed"; }
};

class Collect : public CollectiveObserver {
 public:
  void step_done(int, const StepTimes& t) override { steps.push_back(t); }
  void phase(int, const std::string& name, const char*, double start, double end) override {
    phases.push_back(name + " " + std::to_string(start) + "-" + std::to_string(end));
  }
  std::vector<StepTimes> steps;
  std::vector<std::string> phases;
};

// Forward 1 s, backward 2 s; bucket 0 (1 element) ready halfway through backward, bucket 1
// (1 element) at its end.
StepModel two_buckets() {
  StepModel m;
  m.forward_flops = 1;
  m.backward_flops = 2;
  m.elements = 2;
  m.buckets = {{Span{0, 1}, 0.5}, {Span{1, 1}, 1.0}};
  return m;
}

TEST(CollectiveTraining, WithoutOverlapTheExchangeFollowsTheWholeBackwardPass) {
  TimedExchange program;
  ClockFabric fabric;
  Collect observer;
  CollectiveTraining(program, two_buckets(), Slowdown(Stragglers{}), 1, 2, false)
      .run(fabric, observer);
  ASSERT_EQ(observer.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(observer.steps[0].compute_end, 3.0);
  EXPECT_DOUBLE_EQ(observer.steps[0].end, 5.0);  // 3 s of compute, then 2 s of exchange
  EXPECT_DOUBLE_EQ(observer.steps[0].comm_s, 2.0);
  EXPECT_DOUBLE_EQ(observer.steps[1].start, 5.0);
}

TEST(CollectiveTraining, WithOverlapABucketLeavesWhileBackwardGoesOn) {
  TimedExchange program;
  ClockFabric fabric;
  Collect observer;
  CollectiveTraining(program, two_buckets(), Slowdown(Stragglers{}), 1, 1, true)
      .run(fabric, observer);
  ASSERT_EQ(observer.steps.size(), 1u);
  // Bucket 0 is ready at 2 s and exchanged until 3 s while the rest of backward runs; bucket 1 is
  // ready at 3 s: the step ends at 4 s instead of 5.
  EXPECT_DOUBLE_EQ(observer.steps[0].compute_end, 3.0);
  EXPECT_DOUBLE_EQ(observer.steps[0].end, 4.0);
  EXPECT_DOUBLE_EQ(observer.steps[0].comm_s, 2.0);
  std::vector<std::string> expected = {"step 0",     "wait 0",     "wait 1", "produce 0",
                                       "exchange 0", "end bucket", "wait 2", "produce 1",
                                       "exchange 1", "end bucket"};
  EXPECT_EQ(fabric.calls, expected);
  EXPECT_NE(std::find(observer.phases.begin(), observer.phases.end(), "forward 0.000000-1.000000"),
            observer.phases.end());
  EXPECT_NE(std::find(observer.phases.begin(), observer.phases.end(),
                      "exchange bucket 0 2.000000-3.000000"),
            observer.phases.end());
}

TEST(CollectiveTraining, StragglersStretchTheComputeOfTheirStep) {
  TimedExchange program;
  ClockFabric fabric;
  Collect observer;
  Stragglers slow;
  slow.slow_workers = {0};
  slow.slow_factor = 2;
  CollectiveTraining(program, two_buckets(), Slowdown(slow), 1, 1, false).run(fabric, observer);
  EXPECT_DOUBLE_EQ(observer.steps[0].compute_end, 6.0);
}

// Several steps with overlap on real floats: every worker ends every step with the exact sum.
TEST(CollectiveTraining, OverlappedStepsOnRealFloatsGiveExactSums) {
  const int workers = 4;
  const std::int64_t elements = 1000;
  Plan plan = testing::collective_plan(testing::switch_cluster(1, 1e9, 1e-6), StrategyKind::kRing,
                                       workers, static_cast<double>(elements));
  RankLayout layout{workers, 0, {0, 1, 2, 3}};
  auto program = make_strategy(plan, layout);
  StepModel model;
  model.elements = elements;
  model.buckets = {{Span{0, 300}, 0.3}, {Span{300, 300}, 0.6}, {Span{600, 400}, 1.0}};
  auto out = testing::run_ranks_in_memory(
      workers, 0, elements,
      [&](Fabric& fabric) {
        Collect observer;
        CollectiveTraining(*program, model, Slowdown(Stragglers{}), workers, 3, true)
            .run(fabric, observer);
        if (observer.steps.size() != 3) throw std::runtime_error("steps missing");
      },
      false);
  long wrong = 0;
  for (int r = 0; r < workers; ++r)
    for (std::int64_t i = 0; i < elements; ++i) {
      float expected = 0;
      for (int q = 0; q < workers; ++q) expected += testing::initial_value(q, i);
      wrong += out[r][i] != expected;
    }
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace scaleout::core
