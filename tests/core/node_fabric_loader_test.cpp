// The node's fabric in YAML: intra_node kinds and nics_per_node load, round-trip through the plan
// writer, and every malformed field is refused naming file, line and field.
#include <gtest/gtest.h>

#include <string>

#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

using testing::expect_refused;
using testing::kInlineWorkload;
using testing::TempDir;

// A cluster whose line 5 is `intra` and line 6 `extra` (any further cluster keys), then the
// workload (line 7) and a ring of 8 workers (lines 8-9).
std::string plan(const std::string& intra, const std::string& extra = "  nodes: 2\n") {
  return "cluster:\n"
         "  name: c\n"
         "  devices_per_node: 8\n"
         "  device: { flops: 100TFLOPS }\n" +
         intra + extra + "  nic: { bandwidth: 100Gbps, latency: 2us }\n" + kInlineWorkload +
         "strategy: { kind: ring }\n"
         "training: { workers: 8 }\n";
}

const std::string kPcie =
    "  intra_node: { kind: pcie_tree, bandwidth: 16GB/s, latency: 1us, gpus_per_switch: 4,\n"
    "                uplink: { bandwidth: 16GB/s, latency: 1us },\n"
    "                socket_link: { bandwidth: 20GB/s, latency: 2us } }\n";

TEST(NodeFabricLoader, PcieTreeAndRailsLoadAndRoundTrip) {
  TempDir dir("node-fabric-load");
  Plan p = load_plan(dir.write("p.yaml", plan(kPcie, "  nodes: 2\n  nics_per_node: 2\n")));
  const IntraNodeFabric& f = p.cluster.intra_fabric;
  EXPECT_EQ(f.kind, IntraNodeKind::kPcieTree);
  EXPECT_EQ(f.gpus_per_switch, 4);
  EXPECT_DOUBLE_EQ(f.switch_uplink.bandwidth, 16e9);
  ASSERT_TRUE(f.socket_link.has_value());
  EXPECT_DOUBLE_EQ(f.socket_link->latency, 2e-6);
  EXPECT_DOUBLE_EQ(p.cluster.intra_node.bandwidth, 16e9);
  EXPECT_EQ(p.cluster.nics_per_node, 2);
  std::string saved = (dir.path() / "saved.yaml").string();
  save_plan(p, saved);
  Plan q = load_plan(saved);
  EXPECT_EQ(q.cluster.intra_fabric.kind, IntraNodeKind::kPcieTree);
  EXPECT_EQ(q.cluster.intra_fabric.gpus_per_switch, 4);
  EXPECT_DOUBLE_EQ(q.cluster.intra_fabric.switch_uplink.latency, 1e-6);
  EXPECT_DOUBLE_EQ(q.cluster.intra_fabric.socket_link->bandwidth, 20e9);
  EXPECT_EQ(q.cluster.nics_per_node, 2);
}

TEST(NodeFabricLoader, DefaultsAreNvlinkAndOneNic) {
  TempDir dir("node-fabric-default");
  Plan p = load_plan(dir.write("p.yaml", plan("  intra_node: { bandwidth: 150GB/s }\n")));
  EXPECT_EQ(p.cluster.intra_fabric.kind, IntraNodeKind::kNvlink);
  EXPECT_EQ(p.cluster.nics_per_node, 1);
  Plan s = load_plan(dir.write(
      "s.yaml", plan("  intra_node: { kind: nvswitch, bandwidth: 300GB/s, latency: 1us }\n")));
  EXPECT_EQ(s.cluster.intra_fabric.kind, IntraNodeKind::kNvswitch);
  std::string saved = (dir.path() / "saved.yaml").string();
  save_plan(s, saved);
  EXPECT_EQ(load_plan(saved).cluster.intra_fabric.kind, IntraNodeKind::kNvswitch);
}

TEST(NodeFabricLoader, MalformedFieldsAreRefusedWithFileAndLine) {
  expect_refused("kind", plan("  intra_node: { kind: pcie, bandwidth: 16GB/s }\n"), 5,
                 "intra_node.kind");
  expect_refused("no_gpus_per_switch",
                 plan("  intra_node: { kind: pcie_tree, bandwidth: 16GB/s,\n"
                      "    uplink: { bandwidth: 16GB/s } }\n"),
                 5, "gpus_per_switch");
  expect_refused("zero_gpus_per_switch",
                 plan("  intra_node: { kind: pcie_tree, bandwidth: 16GB/s, gpus_per_switch: 0,\n"
                      "    uplink: { bandwidth: 16GB/s } }\n"),
                 5, "gpus_per_switch");
  expect_refused("no_uplink",
                 plan("  intra_node: { kind: pcie_tree, bandwidth: 16GB/s, gpus_per_switch: 4 }\n"),
                 5, "uplink");
  expect_refused("bad_socket_link",
                 plan("  intra_node: { kind: pcie_tree, bandwidth: 16GB/s, gpus_per_switch: 4,\n"
                      "    uplink: { bandwidth: 16GB/s }, socket_link: { bandwidth: fast } }\n"),
                 6, "socket_link.bandwidth");
  expect_refused("pcie_key_on_nvlink",
                 plan("  intra_node: { bandwidth: 16GB/s, gpus_per_switch: 4 }\n"), 5,
                 "gpus_per_switch");
  const std::string nv = "  intra_node: { bandwidth: 150GB/s }\n";
  expect_refused("zero_nics", plan(nv, "  nics_per_node: 0\n"), 6, "nics_per_node");
  expect_refused("many_nics", plan(nv, "  nics_per_node: 65\n"), 6, "nics_per_node");
  expect_refused("text_nics", plan(nv, "  nics_per_node: two\n"), 6, "nics_per_node");
  expect_refused("torus_nics",
                 plan(nv, "  nics_per_node: 2\n  network: { kind: torus2d, dims: [2, 1] }\n"), 6,
                 "nics_per_node");
}

}  // namespace
}  // namespace scaleout::core
