// A plan measured on an emulated cluster built for another topology is refused, naming both.
#include <gtest/gtest.h>

#include "core/plan/plan_loader.hpp"
#include "exec/emulated_cluster.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::exec {
namespace {

// What cluster_up records, without building anything (no root needed).
EmulatedCluster recorded(const core::Topology& topo, const std::string& name) {
  EmulatedCluster c;
  c.name = name;
  for (int n = 0; n < topo.num_nodes(); ++n) c.node_devices.push_back(topo.devices_on_node(n));
  for (const auto& l : topo.links())
    if (l.cls != core::LinkClass::kIntraNode) c.link_bandwidth[l.name] = l.bandwidth;
  return c;
}

TEST(TopologyMismatch, TheSameTopologyOrFewerOfItsNodesFit) {
  core::Cluster emulated =
      core::load_cluster(testing::source_path("topologies/emulated-4x200mbit.yaml"));
  EmulatedCluster built = recorded(core::Topology::build(emulated, 4), emulated.name);
  EXPECT_EQ(topology_mismatch(built, core::Topology::build(emulated, 4), emulated.name), "");
  EXPECT_EQ(topology_mismatch(built, core::Topology::build(emulated, 2), emulated.name), "")
      << "a subset";
  EXPECT_EQ(topology_mismatch(EmulatedCluster{}, core::Topology::build(emulated, 4), "x"), "")
      << "old state";
}

TEST(TopologyMismatch, AnotherTopologyIsNamedWithTheDifference) {
  core::Cluster emulated =
      core::load_cluster(testing::source_path("topologies/emulated-4x200mbit.yaml"));
  EmulatedCluster built = recorded(core::Topology::build(emulated, 4), emulated.name);
  core::Cluster v100 = core::load_cluster(testing::source_path("topologies/v100-ib-switch.yaml"));
  std::string why = topology_mismatch(built, core::Topology::build(v100, 8), v100.name);
  EXPECT_NE(why.find("v100-ib-switch"), std::string::npos) << why;
  EXPECT_NE(why.find(emulated.name), std::string::npos) << why;
  EXPECT_NE(why.find("8 devices"), std::string::npos) << why;
  core::Cluster faster = emulated;
  faster.nic.bandwidth *= 2;
  why = topology_mismatch(built, core::Topology::build(faster, 4), "faster");
  EXPECT_NE(why.find("Mb/s"), std::string::npos) << why;
}

TEST(TopologyMismatch, ATopologyCalibratedFromTheClusterNeedsItsLinksNotItsRates) {
  core::Cluster emulated =
      core::load_cluster(testing::source_path("topologies/emulated-4x200mbit.yaml"));
  EmulatedCluster built = recorded(core::Topology::build(emulated, 4), emulated.name);
  core::Cluster calibrated = emulated;
  calibrated.name = emulated.name + "-calibrated";
  calibrated.nic.bandwidth *= 0.956;  // what TCP carries through tbf
  EXPECT_NE(topology_mismatch(built, core::Topology::build(calibrated, 4), calibrated.name), "")
      << "not said to be calibrated: other rates";
  EXPECT_EQ(topology_mismatch(built, core::Topology::build(calibrated, 4), calibrated.name,
                              emulated.name),
            "");
  EXPECT_NE(topology_mismatch(built, core::Topology::build(calibrated, 4), calibrated.name,
                              "another-cluster"),
            "");
  core::Cluster bigger = calibrated;
  bigger.devices_per_node = 2;
  bigger.intra_node = {1e9, 1e-6};
  std::string why =
      topology_mismatch(built, core::Topology::build(bigger, 8), bigger.name, emulated.name);
  EXPECT_NE(why.find("2 devices"), std::string::npos) << why;
}

}  // namespace
}  // namespace scaleout::exec
