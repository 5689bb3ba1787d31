// The topology's transport (`transport:`): TCP's window and MPI's rendezvous, derived by hand on a
// ring, and the simulator against the closed forms where both bind.
#include <gtest/gtest.h>

#include <cmath>

#include "analytic/analytic.hpp"
#include "sim/simulator.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

// One device per node on a CM02 switch, 10 Gb/s NICs 250 us away: a message between nodes takes
// the route device link, NIC, NIC, device link: 2 x (1 us + 250 us).
constexpr double kNicBps = 1.25e9, kNicLatency = 250e-6, kRoute = 2 * (1e-6 + kNicLatency);

core::Plan ring(int workers, double parameters, core::Transport transport) {
  core::Cluster cluster = testing::switch_cluster(1, kNicBps, kNicLatency);
  cluster.transport = transport;
  return testing::collective_plan(cluster, core::StrategyKind::kRing, workers, parameters);
}

core::Transport rdma(double eager_limit = -1) {
  core::Transport t;
  t.kind = core::TransportKind::kRdma;
  t.eager_limit = eager_limit;
  return t;
}

core::Transport tcp(double window) {
  core::Transport t;
  t.window = window;
  return t;
}

double sim_step(const core::Plan& p, Fidelity fidelity) {
  SimOptions options;
  options.fidelity = fidelity;
  return simulate(p, options).step_time_s;
}

// A ring all-reduce of S bytes over N ranks: 2(N-1) steps of S/N bytes, each one flow a NIC.
// Under a window W a flow moves W per round trip, W / (2 x route latency): 65 MB/s for 64 KiB
// here, against the NIC's 1.25 GB/s, so each step takes (S/N) x 2 x route / W instead of
// (S/N) / NIC.
TEST(Transport, TcpWindowBoundsEachFlowToAWindowPerRoundTrip) {
  const double params = 2.5e6, bytes = 4 * params, window = 65536;
  for (Fidelity fidelity : {Fidelity::kFast, Fidelity::kStep})
    for (int n : {2, 4}) {
      double steps = 2.0 * (n - 1), chunk = bytes / n;
      double added = steps * chunk * (2 * kRoute / window - 1 / kNicBps);
      double unbounded = sim_step(ring(n, params, rdma()), fidelity);
      double sim = sim_step(ring(n, params, tcp(window)), fidelity);
      EXPECT_NEAR(sim - unbounded, added, 1e-3 * added) << n << " ranks";
      double closed = predict_analytic(ring(n, params, tcp(window))).step_time_s -
                      predict_analytic(ring(n, params, rdma())).step_time_s;
      EXPECT_NEAR(closed, added, 1e-3 * added) << n << " ranks";
    }
}

// A message above the eager limit waits a round trip (request to send, clear to send) before its
// data: 2(N-1) steps each add 2 x route latency; at or below the limit nothing changes.
TEST(Transport, RendezvousAddsARoundTripToEachMessageAboveTheEagerLimit) {
  const double params = 2.5e6, bytes = 4 * params;
  for (Fidelity fidelity : {Fidelity::kFast, Fidelity::kStep})
    for (int n : {2, 4}) {
      double chunk = bytes / n, added = 2.0 * (n - 1) * 2 * kRoute;
      double eager = sim_step(ring(n, params, rdma()), fidelity);
      EXPECT_NEAR(sim_step(ring(n, params, rdma(chunk / 2)), fidelity) - eager, added, 1e-6 * added)
          << n << " ranks";
      EXPECT_EQ(sim_step(ring(n, params, rdma(chunk)), fidelity), eager) << n << " ranks";
      double closed = predict_analytic(ring(n, params, rdma(chunk / 2))).step_time_s -
                      predict_analytic(ring(n, params, rdma())).step_time_s;
      EXPECT_NEAR(closed, added, 1e-6 * added) << n << " ranks";
    }
}

// 4-device nodes on an LV08 switch whose window binds between nodes (128 KiB over 2 x 2 x 51 us:
// 0.64 GB/s against 1.25 GB/s NICs) with rendezvous above 256 KiB: every data-parallel strategy's
// closed form within 2% of the simulator, and slower than without the transport. With two NICs a
// node, a transfer between nodes is striped over both, a window each.
TEST(Transport, SimulatorAndClosedFormsAgreeWhereTheTransportBinds) {
  core::Transport t = tcp(131072);
  t.eager_limit = 262144;
  int checked = 0;
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kHierarchicalRing,
                    core::StrategyKind::kTree, core::StrategyKind::kHalvingDoubling})
    for (double params : {2.5e5, 2.5e7})
      for (int rails : {1, 2}) {
        core::Cluster cluster = testing::switch_cluster(4, kNicBps, 50e-6);
        cluster.network_model = "lv08";
        cluster.nics_per_node = rails;
        cluster.transport = t;
        core::Plan plan = testing::collective_plan(cluster, kind, 16, params);
        double sim = sim_step(plan, Fidelity::kFast), closed = predict_analytic(plan).step_time_s;
        EXPECT_LT(std::fabs(sim - closed) / sim, 0.02)
            << core::strategy_name(kind) << ", " << params << " parameters, " << rails
            << " rails: sim " << sim << " s, closed form " << closed << " s";
        core::Plan free = plan;
        free.cluster.transport = rdma();
        EXPECT_GT(closed, predict_analytic(free).step_time_s) << core::strategy_name(kind);
        ++checked;
      }
  EXPECT_EQ(checked, 16);
}

// A synchronous parameter server, one device a node: each push and pull a flow of its own under
// the window (the max-min closed form), each message above the eager limit held by its rendezvous
// as by a host's time (the closed form with host costs): within 2% of the simulator, and slower
// than without the transport.
TEST(Transport, ASynchronousParameterServersClosedFormsChargeTheTransport) {
  core::Transport both = tcp(65536);
  both.eager_limit = 65536;
  int checked = 0;
  for (const core::Transport& t : {tcp(65536), rdma(65536), both})
    for (int workers : {4, 8})
      for (int servers : {1, 2}) {
        core::Plan plan = ring(workers, 2.5e6, t);
        plan.strategy.kind = core::StrategyKind::kPs;
        plan.strategy.ps_servers = servers;
        double sim = sim_step(plan, Fidelity::kFast), closed = predict_analytic(plan).step_time_s;
        EXPECT_LT(std::fabs(sim - closed) / sim, 0.02)
            << "window " << t.window << ", eager " << t.eager_limit << ", " << workers
            << " workers, " << servers << " servers: sim " << sim << " s, closed form " << closed
            << " s";
        core::Plan free = plan;
        free.cluster.transport = rdma();
        EXPECT_GT(closed, predict_analytic(free).step_time_s);
        ++checked;
      }
  EXPECT_EQ(checked, 12);
}

// A split over two nodes 50 us from their switch, under a 64 KiB window with rendezvous above
// 64 KiB: the pipeline's stage transfers (a stage a node) and the experts' all-to-alls cross
// nodes. The closed form within 3% of the simulator, and slower than without the transport.
TEST(Transport, ASplitsTransfersBetweenNodesAreChargedInBothEngines) {
  auto split = [](const std::string& name, const std::string& parallelism, bool experts) {
    std::string text = testing::two_node_gpt(parallelism, 16, 16);
    if (experts)
      text.replace(text.find("vocabulary: 32000 }"), 19,
                   "vocabulary: 32000, moe: { experts: 16, top_k: 2, every: 4 } }");
    core::Plan plan = testing::load_text(name, text);
    plan.cluster.nic.latency = 50e-6;
    plan.cluster.transport = tcp(65536);
    plan.cluster.transport.eager_limit = 65536;
    return plan;
  };
  for (core::Plan plan : {split("transport-pipeline", "tensor: 8, pipeline: 2", false),
                          split("transport-experts", "expert: 16", true)}) {
    core::RunResult sim = simulate(plan), closed = predict_analytic(plan);
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.03) << plan.file;
    core::Plan free = plan;
    free.cluster.transport = rdma();
    EXPECT_GT(closed.step_time_s, 1.05 * predict_analytic(free).step_time_s) << plan.file;
  }
}

// Where the closed form leaves the transport out (an asynchronous parameter server's messages), it
// says so.
TEST(Transport, AParameterServersClosedFormWarnsWhereTheTransportMayBind) {
  core::Plan plan = ring(4, 2.5e6, rdma(65536));
  plan.strategy.kind = core::StrategyKind::kPs;
  plan.strategy.ps_mode = core::PsMode::kAsync;
  auto warned = [](const core::RunResult& r) {
    for (const auto& w : r.warnings)
      if (w.find("transport's TCP window or rendezvous") != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(warned(predict_analytic(plan)));
  plan.cluster.transport = rdma();
  EXPECT_FALSE(warned(predict_analytic(plan)));
}

}  // namespace
}  // namespace scaleout::sim
