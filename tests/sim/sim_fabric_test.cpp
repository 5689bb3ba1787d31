// The simulated fabric alone, in one SimGrid engine (one per process: this is the only test of
// the suite that runs SimGrid in-process; the others simulate in child processes).
#include "sim/sim_fabric.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/link_loads.hpp"
#include "sim/platform.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

namespace sg4 = simgrid::s4u;

// Two devices on two nodes behind a switch: 1 GB/s links of 1 us each (CM02: no corrections).
struct TwoRanks {
  double send_done = -1, recv_done = -1, coalesced_done = -1, compute_done = -1,
         overlapped_send = -1, late_receiver = -1, late_sender = -1, all_done = -1;
  double queued_first = -1, queued_second = -1, idle_stream = -1;
  bool busy_refused = false;
};

TEST(SimFabric, TransfersComputeStreamAndCoalescedSteps) {
  int argc = 1;
  char arg0[] = "sim_fabric_test";
  char* argv[] = {arg0, nullptr};
  sg4::Engine engine(&argc, argv);
  configure_network_model("cm02");
  core::Cluster cluster = testing::switch_cluster(1, 1e9, 1e-6);
  cluster.intra_node = {1e12, 0};
  cluster.device.flops = 1e9;
  core::Topology topo = core::Topology::build(cluster, 2);
  SimPlatform platform = build_platform(topo);
  SimWorld world;
  world.topology = &topo;
  world.rank_device = {0, 1};
  world.rank_host = {platform.device_hosts[0], platform.device_hosts[1]};
  world.bytes_per_element = 4;
  SimFabric f0(world, 0), f1(world, 1);
  TwoRanks t;
  sg4::Actor::create("r0", world.rank_host[0], [&] {
    f0.wait_all({f0.post_send(1, {0, 250000})});  // 1 MB
    t.send_done = f0.now();
    // Three fixed-peer steps of 1 MB each, as one message plus two more steps' latencies.
    f0.exchange_steps(1, 1, 3, [](int) {
      return core::ExchangeStep{{0, 250000}, {0, 250000}, core::Combine::kAdd};
    });
    t.coalesced_done = f0.now();
    // 1 GFLOP on the stream (1 s) beside a 1 MB send: both done after about 1 s, not 1.001 s.
    auto ticket = f0.compute_async(1e9);
    double start = f0.now();
    f0.wait_all({f0.post_send(1, {0, 250000})});
    t.overlapped_send = f0.now() - start;
    t.compute_done = f0.wait_compute(ticket) - start;
    f0.end_bucket();
    // A transfer moves once both sides posted it: here the receiver comes 0.5 s late...
    f0.idle(2.0 - f0.now());
    start = f0.now();
    f0.wait_all({f0.post_send(1, {0, 250000})});
    t.late_receiver = f0.now() - start;
    // ... and here the sender, 0.25 s.
    f0.idle(0.25);
    f0.wait_all({f0.post_send(1, {0, 250000})});
    f0.end_bucket();
  });
  sg4::Actor::create("r1", world.rank_host[1], [&] {
    f1.wait_all({f1.post_recv(0, {0, 250000}, core::Combine::kAdd)});
    t.recv_done = f1.now();
    f1.exchange_steps(0, 0, 3, [](int) {
      return core::ExchangeStep{{0, 250000}, {0, 250000}, core::Combine::kAdd};
    });
    f1.wait_all({f1.post_recv(0, {0, 250000}, core::Combine::kAdd)});
    f1.end_bucket();
    f1.idle(2.5 - f1.now());
    f1.wait_all({f1.post_recv(0, {0, 250000}, core::Combine::kAdd)});
    double start = f1.now();
    f1.wait_all({f1.post_recv(0, {0, 250000}, core::Combine::kAdd)});
    t.late_sender = f1.now() - start;
    t.all_done = f1.now();
    f1.end_bucket();
    // The stream runs its jobs in turn at 1 GFLOP/s: the second waits for the first...
    start = f1.now();
    auto first = f1.compute_async(5e8), second = f1.compute_async(2.5e8);
    t.queued_second = f1.wait_compute(second) - start;
    t.queued_first = f1.wait_compute(first) - start;  // already over: no wait, its own end
    // ... a blocking compute beside a busy stream is refused (it would share the device) ...
    auto busy = f1.compute_async(1e8);
    try {
      f1.compute(1e6);
    } catch (const std::logic_error&) {
      t.busy_refused = true;
    }
    f1.wait_compute(busy);
    // ... and a job queued on an idle stream starts when queued.
    f1.idle(1.0);
    start = f1.now();
    t.idle_stream = f1.wait_compute(f1.compute_async(1e8)) - start;
  });
  engine.run();
  // 1 MB over two 1 GB/s hops (store and forward is not modelled: one flow) plus two latencies.
  EXPECT_NEAR(t.send_done, 1e-3 + 2e-6, 1e-7);
  EXPECT_NEAR(t.recv_done, t.send_done, 1e-9);
  // Three steps coalesced: 3 MB each way (full duplex) plus the latencies of three steps.
  EXPECT_NEAR(t.coalesced_done - t.send_done, 3e-3 + 3 * 2e-6, 1e-6);
  EXPECT_NEAR(t.overlapped_send, 1e-3 + 2e-6, 1e-7);
  EXPECT_NEAR(t.compute_done, 1.0, 1e-6);
  EXPECT_NEAR(t.late_receiver, 0.5 + 1e-3 + 2e-6, 1e-7);
  EXPECT_NEAR(t.late_sender, 0.25 + 1e-3 + 2e-6, 1e-7);
  EXPECT_NEAR(t.queued_first, 0.5, 1e-9);
  EXPECT_NEAR(t.queued_second, 0.75, 1e-9);
  EXPECT_TRUE(t.busy_refused);
  EXPECT_NEAR(t.idle_stream, 0.1, 1e-9);
  // Bytes were counted for link loads: 1 + 3 + 1 + 2 MB from rank 0, 3 MB from rank 1.
  double from0 = 0, from1 = 0;
  for (const auto& step : world.pair_bytes)
    for (const auto& [pair, bytes] : step) (pair >> 32 == 0 ? from0 : from1) += bytes;
  EXPECT_DOUBLE_EQ(from0, 7e6);
  EXPECT_DOUBLE_EQ(from1, 3e6);

  // Link loads: every byte crosses both NICs; utilization is the busier direction over the run.
  double end = t.all_done;
  auto loads = link_loads(topo, world, {0.0}, {end}, nullptr);
  int nics = 0;
  for (const auto& l : loads)
    if (l.name.find("nic") != std::string::npos) {
      ++nics;
      EXPECT_DOUBLE_EQ(l.bytes, 10e6) << l.name;
      EXPECT_NEAR(l.utilization, 7e6 / (1e9 * end), 1e-12) << l.name;
    }
  EXPECT_EQ(nics, 2);
}

}  // namespace
}  // namespace scaleout::sim
