// The plan's knobs for local aggregation before a parameter server and for the hosts' software
// costs: what loads, what is refused (file, line and field), and that a saved plan round-trips.
#include <gtest/gtest.h>

#include "core/model/server_hosts.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"
#include "core/plan/topology.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

using testing::expect_refused;
using testing::kInlineWorkload;
using testing::Refusal;

// Lines 1-7 a cluster of 8-device nodes (as many as the job needs), line 8 `host:` (when given),
// then the workload and the rest.
std::string plan(const std::string& host, const std::string& rest) {
  std::string cluster = testing::kInlineCluster;
  cluster.replace(cluster.find("nodes: 2"), 8, "nodes: auto");
  return cluster + host + kInlineWorkload + rest;
}

const std::string kPs = "strategy: { kind: ps, servers: 2 }\ntraining: { workers: 8 }\n";

TEST(PsCostsPlan, HostCostsAndLocalAggregationLoadAndRoundTrip) {
  testing::TempDir dir("ps-costs-load");
  std::string file = dir.write(
      "plan.yaml", plan("  host: { message_overhead: 40us, copy_rate: 8GB/s, sum_rate: 4GB/s }\n",
                        "strategy: { kind: ps, servers: 2, local_aggregation: node }\n"
                        "training: { workers: 16 }\n"));
  Plan p = load_plan(file);
  EXPECT_DOUBLE_EQ(p.cluster.host.message_overhead, 40e-6);
  EXPECT_DOUBLE_EQ(p.cluster.host.copy_rate, 8e9);
  EXPECT_DOUBLE_EQ(p.cluster.host.sum_rate, 4e9);
  EXPECT_EQ(p.strategy.ps_local_aggregation, PsAggregation::kNode);
  std::string again = dir.write("again.yaml", plan_to_yaml(p));
  Plan q = load_plan(again);
  EXPECT_DOUBLE_EQ(q.cluster.host.message_overhead, 40e-6);
  EXPECT_DOUBLE_EQ(q.cluster.host.copy_rate, 8e9);
  EXPECT_DOUBLE_EQ(q.cluster.host.sum_rate, 4e9);
  EXPECT_EQ(q.strategy.ps_local_aggregation, PsAggregation::kNode);
  EXPECT_EQ(plan_to_yaml(q), plan_to_yaml(p));
}

// BytePS's layout as a plan: one node's sum compressed once, CPU servers at their codec rate.
TEST(PsCostsPlan, ACompressedBytePsLayoutLoadsAndRoundTrips) {
  testing::TempDir dir("ps-costs-byteps");
  std::string file = dir.write(
      "plan.yaml",
      plan("  host: { codec_rate: 0.5G/s }\n",
           "strategy: { kind: ps, servers: 2, placement: dedicated, local_aggregation: node, "
           "server_hosts: cpu }\ntraining: { workers: 16, compression: { kind: onebit } }\n"));
  Plan p = load_plan(file);
  EXPECT_DOUBLE_EQ(p.cluster.host.codec_rate, 0.5e9);
  EXPECT_FALSE(p.cluster.host.any());  // no per-message cost: compression may run
  EXPECT_EQ(p.strategy.ps_server_hosts, PsServerHosts::kCpu);
  Plan q = load_plan(dir.write("again.yaml", plan_to_yaml(p)));
  EXPECT_DOUBLE_EQ(q.cluster.host.codec_rate, 0.5e9);
  EXPECT_EQ(plan_to_yaml(q), plan_to_yaml(p));
}

TEST(PsCostsPlan, DefaultsAreNoneAndFree) {
  testing::TempDir dir("ps-costs-defaults");
  Plan p = load_plan(dir.write("plan.yaml", plan("", kPs)));
  EXPECT_FALSE(p.cluster.host.any());
  EXPECT_EQ(p.strategy.ps_local_aggregation, PsAggregation::kNone);
  EXPECT_EQ(plan_to_yaml(p).find("host"), std::string::npos);
  EXPECT_EQ(plan_to_yaml(p).find("local_aggregation"), std::string::npos);
}

// CPU server hosts: the same nodes and NICs, no accelerators counted for them.
TEST(PsCostsPlan, CpuServerHostsHoldNoAccelerators) {
  testing::TempDir dir("ps-costs-cpu-hosts");
  Plan gpu = load_plan(dir.write("gpu.yaml", plan("", kPs)));
  Plan cpu =
      load_plan(dir.write("cpu.yaml", plan("",
                                           "strategy: { kind: ps, servers: 2, server_hosts: cpu }\n"
                                           "training: { workers: 8 }\n")));
  EXPECT_EQ(cpu.strategy.ps_server_hosts, PsServerHosts::kCpu);
  EXPECT_EQ(devices_needed(cpu), devices_needed(gpu));  // the same graph: one node per server
  EXPECT_EQ(accelerators_needed(gpu), 8 + 2 * 8);
  EXPECT_EQ(accelerators_needed(cpu), 8);
  Plan again = load_plan(dir.write("again.yaml", plan_to_yaml(cpu)));
  EXPECT_EQ(again.strategy.ps_server_hosts, PsServerHosts::kCpu);
}

class PsCostsRefused : public ::testing::TestWithParam<Refusal> {};
TEST_P(PsCostsRefused, NamesFileLineAndWhy) {
  const Refusal& r = GetParam();
  expect_refused(r.name, r.yaml, r.line, r.expect);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, PsCostsRefused,
    ::testing::Values(
        Refusal{"overhead_without_unit", plan("  host: { message_overhead: 40 }\n", kPs), 8,
                "cluster.host.message_overhead"},
        Refusal{"overhead_negative", plan("  host: { message_overhead: -1us }\n", kPs), 8,
                "message_overhead"},
        Refusal{"copy_rate_zero", plan("  host: { copy_rate: 0GB/s }\n", kPs), 8, "copy_rate"},
        Refusal{"sum_rate_not_a_rate", plan("  host: { sum_rate: 4GB }\n", kPs), 8, "sum_rate"},
        Refusal{"sum_rate_infinite", plan("  host: { sum_rate: 1e400GB/s }\n", kPs), 8, "finite"},
        Refusal{"host_unknown_key", plan("  host: { serialize: 1us }\n", kPs), 8, "serialize"},
        Refusal{"host_not_a_mapping", plan("  host: fast\n", kPs), 8, "cluster.host"},
        Refusal{"aggregation_unknown",
                plan("",
                     "strategy: { kind: ps, local_aggregation: rack }\ntraining: { workers: "
                     "8 }\n"),
                9, "none | node"},
        Refusal{"aggregation_on_ring",
                plan("",
                     "strategy: { kind: ring, local_aggregation: node }\ntraining: { "
                     "workers: 8 }\n"),
                9, "local_aggregation"},
        Refusal{"aggregation_with_async",
                plan("",
                     "strategy:\n  kind: ps\n  mode: async\n  local_aggregation: node\n"
                     "training: { workers: 8 }\n"),
                12, "synchronous PS"},
        Refusal{"aggregation_with_backup_workers",
                plan("",
                     "strategy:\n  kind: ps\n  replicas_to_aggregate: 6\n"
                     "  local_aggregation: node\ntraining: { workers: 8 }\n"),
                12, "backup workers"},
        Refusal{"server_hosts_unknown",
                plan("", "strategy: { kind: ps, server_hosts: tpu }\ntraining: { workers: 8 }\n"),
                9, "gpu | cpu"},
        Refusal{"cpu_hosts_colocated",
                plan("",
                     "strategy:\n  kind: ps\n  placement: colocated\n  server_hosts: cpu\n"
                     "training: { workers: 8 }\n"),
                12, "dedicated"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace scaleout::core
