// The totals a ring phase hands to exchange_run (what a simulated fabric sends in aggregate) are
// the sums of its steps, for every ring size, position and span, divisible or not.
#include <gtest/gtest.h>

#include "core/programs/fabric.hpp"
#include "core/programs/strategies/ring_phases.hpp"

namespace scaleout::core {
namespace {

// Checks each run's totals against its steps; moves nothing.
class TotalsFabric : public Fabric, public Device {
 public:
  int runs = 0;
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Handle post_send(int, Span) override { return 0; }
  Handle post_recv(int, Span, Combine) override { return 0; }
  void wait_all(const std::vector<Handle>&) override {}
  void run_exchange(int to, int from, int count, const StepFn& step,
                    const StepTotals* totals) override {
    if (!totals) return Fabric::run_exchange(to, from, count, step, totals);
    StepTotals sum;
    for (int i = 0; i < count; ++i) {
      sum.send += step(i).send.count;
      sum.recv += step(i).recv.count;
    }
    EXPECT_EQ(totals->send, sum.send) << "steps " << count;
    EXPECT_EQ(totals->recv, sum.recv) << "steps " << count;
    ++runs;
  }
  Device& device() override { return *this; }
  Mailbox* mailbox_if_any() override { return nullptr; }
  void idle(double) override {}
  void compute(double) override {}
  double now() override { return 0; }
};

TEST(RingTotals, EqualTheSumsOfTheSteps) {
  TotalsFabric fabric;
  for (int n = 2; n <= 9; ++n)
    for (int p = 0; p < n; ++p)
      for (std::int64_t count : {0, 1, 5, 17, 1000, 1003}) {
        RingGroup group = strided_ring(0, 1, n, p);
        Span span{7, count};
        ring_reduce_scatter(fabric, group, span);
        ring_allgather(fabric, group, span);
        ring_allreduce(fabric, group, span);
      }
  EXPECT_EQ(fabric.runs, 3 * 6 * (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9));
}

}  // namespace
}  // namespace scaleout::core
