// The topology's `transport:` (TCP's window, MPI's eager limit): what loads, what is refused
// (file, line and field), and that a saved plan round-trips.
#include <gtest/gtest.h>

#include <cmath>

#include "core/model/transport.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

using testing::expect_refused;
using testing::kInlineWorkload;
using testing::Refusal;

// Lines 1-7 a cluster of 8-device nodes, line 8 `transport:` (when given), then the rest.
std::string plan(const std::string& transport) {
  std::string cluster = testing::kInlineCluster;
  cluster.replace(cluster.find("nodes: 2"), 8, "nodes: auto");
  return cluster + transport + kInlineWorkload +
         "strategy: { kind: ring }\ntraining: { workers: 16 }\n";
}

TEST(TransportPlan, TcpWindowAndEagerLimitLoadAndRoundTrip) {
  testing::TempDir dir("transport-load");
  Plan p = load_plan(dir.write(
      "plan.yaml", plan("  transport: { kind: tcp, window: 256KiB, eager_limit: 64KiB }\n")));
  EXPECT_EQ(p.cluster.transport.kind, TransportKind::kTcp);
  EXPECT_DOUBLE_EQ(p.cluster.transport.window, 262144);
  EXPECT_DOUBLE_EQ(p.cluster.transport.eager_limit, 65536);
  Plan q = load_plan(dir.write("again.yaml", plan_to_yaml(p)));
  EXPECT_DOUBLE_EQ(q.cluster.transport.window, 262144);
  EXPECT_DOUBLE_EQ(q.cluster.transport.eager_limit, 65536);
  EXPECT_EQ(plan_to_yaml(q), plan_to_yaml(p));
}

TEST(TransportPlan, RdmaHasNoWindowAndAnEagerLimitOfZeroRendezvousesEveryMessage) {
  testing::TempDir dir("transport-rdma");
  Plan p =
      load_plan(dir.write("plan.yaml", plan("  transport: { kind: rdma, eager_limit: 0B }\n")));
  EXPECT_EQ(p.cluster.transport.kind, TransportKind::kRdma);
  EXPECT_TRUE(std::isinf(window_rate(p.cluster.transport, 1e-3)));
  EXPECT_EQ(simgrid_window(p.cluster.transport), 0.0);
  EXPECT_TRUE(p.cluster.transport.rendezvous(1));
  EXPECT_DOUBLE_EQ(rendezvous_seconds(p.cluster.transport, 1, 5e-6), 10e-6);
  Plan q = load_plan(dir.write("again.yaml", plan_to_yaml(p)));
  EXPECT_EQ(q.cluster.transport.kind, TransportKind::kRdma);
  EXPECT_DOUBLE_EQ(q.cluster.transport.eager_limit, 0);
}

// Without the block: SimGrid's own 4 MiB window, no rendezvous, and nothing written back.
TEST(TransportPlan, TheDefaultIsTcpsFourMebibyteWindowWithoutRendezvous) {
  testing::TempDir dir("transport-default");
  Plan p = load_plan(dir.write("plan.yaml", plan("")));
  EXPECT_DOUBLE_EQ(window_rate(p.cluster.transport, 1e-3), 4194304 / 2e-3);
  EXPECT_FALSE(p.cluster.transport.rendezvous(1e12));
  EXPECT_EQ(plan_to_yaml(p).find("transport"), std::string::npos);
}

class TransportRefused : public ::testing::TestWithParam<Refusal> {};
TEST_P(TransportRefused, NamesFileLineAndWhy) {
  const Refusal& r = GetParam();
  expect_refused(r.name, r.yaml, r.line, r.expect);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, TransportRefused,
    ::testing::Values(
        Refusal{"unknown_kind", plan("  transport: { kind: udp }\n"), 8, "tcp | rdma"},
        Refusal{"window_over_rdma", plan("  transport: { kind: rdma, window: 1MiB }\n"), 8,
                "cluster.transport.window"},
        Refusal{"window_zero", plan("  transport: { window: 0B }\n"), 8, "window"},
        Refusal{"window_not_a_size", plan("  transport: { window: 1Gbps }\n"), 8, "window"},
        Refusal{"eager_negative", plan("  transport: { eager_limit: -1KiB }\n"), 8,
                "cluster.transport.eager_limit"},
        Refusal{"unknown_key", plan("  transport: { per_flow: 5Gbps }\n"), 8, "per_flow"},
        Refusal{"not_a_mapping", plan("  transport: tcp\n"), 8, "cluster.transport"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace scaleout::core
