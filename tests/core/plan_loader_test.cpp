#include "core/plan/plan_loader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/plan/input_error.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

namespace fs = std::filesystem;
using testing::source_path;

TEST(BundledData, EveryModelTopologyAndPlanLoads) {
  int count = 0;
  for (const char* dir : {"models", "topologies"})
    for (const auto& entry : fs::directory_iterator(source_path(dir))) {
      if (entry.path().extension() != ".yaml") continue;
      SCOPED_TRACE(entry.path().string());
      if (std::string(dir) == "models") {
        Workload w = load_workload(entry.path());
        EXPECT_GT(w.parameters, 0);
        EXPECT_GT(w.flops_per_sample, 0);
      } else {
        Cluster c = load_cluster(entry.path());
        EXPECT_GT(c.device.flops, 0);
      }
      ++count;
    }
  for (const auto& path : testing::bundled_plans()) {
    SCOPED_TRACE(path);
    Plan p = load_plan(path);
    EXPECT_GE(p.training.workers, 1);
    ++count;
  }
  EXPECT_GE(count, 12);  // six models, five topologies, the quickstart plan
}

TEST(PlanLoader, QuickstartValuesAreSi) {
  Plan p = load_plan(source_path("experiments/quickstart.yaml"));
  EXPECT_EQ(p.cluster.name, "v100-ib-switch");
  EXPECT_DOUBLE_EQ(p.cluster.nic.bandwidth, 12.5e9);
  EXPECT_DOUBLE_EQ(p.cluster.nic.latency, 2e-6);
  EXPECT_DOUBLE_EQ(p.workload.parameters, 25.6e6);
  EXPECT_EQ(p.strategy.kind, StrategyKind::kRing);
  EXPECT_DOUBLE_EQ(p.strategy.chunk, 4.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(p.gradient_bytes(), 25.6e6 * 4);
}

TEST(PlanLoader, OverridesReplaceWorkersAndStrategy) {
  PlanOverrides o;
  o.workers = 16;
  o.strategy = StrategyKind::kTorus2d;
  Plan p = load_plan(source_path("experiments/quickstart.yaml"), o);
  EXPECT_EQ(p.training.workers, 16);
  EXPECT_EQ(p.strategy.kind, StrategyKind::kTorus2d);
}

// Each malformed input: the YAML of the plan (its cluster and workload inline unless the case
// replaces them), the line the error must name, and a word the message must contain.
struct BadCase {
  const char* name;
  std::string yaml;
  int line;
  const char* expect;
};

// The shared inline cluster (2 nodes of 8 devices) and workload of the loader tests.
const char* kCluster = testing::kInlineCluster;
const char* kWorkload = testing::kInlineWorkload;

std::string plan_text(const std::string& cluster, const std::string& workload,
                      const std::string& rest) {
  return cluster + workload + rest;
}

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, NamesFileAndLine) {
  const BadCase& c = GetParam();
  fs::path dir = fs::temp_directory_path() / ("scaleout-bad-" + std::string(c.name));
  fs::create_directories(dir);
  fs::path file = dir / "plan.yaml";
  std::ofstream(file) << c.yaml;
  try {
    load_plan(file.string());
    FAIL() << "no error for " << c.name;
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
    if (c.line > 0)
      EXPECT_NE(msg.find(":" + std::to_string(c.line) + ":"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
  }
  fs::remove_all(dir);
}

const std::string kStrategy = "strategy: { kind: ring }\n";
const std::string kTraining = "training: { workers: 8 }\n";

INSTANTIATE_TEST_SUITE_P(
    Table, BadInput,
    ::testing::Values(
        BadCase{"missing_field", std::string(plan_text(kCluster, kWorkload, kStrategy).c_str()), 1,
                "training"},
        BadCase{"bad_unit",
                std::string(plan_text(std::string(kCluster).replace(
                                          std::string(kCluster).find("100Gbps"), 7, "100Gbq"),
                                      kWorkload, kStrategy + kTraining)
                                .c_str()),
                6, "bandwidth"},
        BadCase{"negative_bandwidth",
                std::string(plan_text(std::string(kCluster).replace(
                                          std::string(kCluster).find("150GB/s"), 7, "-150GB/s"),
                                      kWorkload, kStrategy + kTraining)
                                .c_str()),
                5, "greater than zero"},
        BadCase{"unknown_key",
                std::string(plan_text(kCluster, kWorkload,
                                      kStrategy + "training: { workers: 8, wrokers: 3 }\n")
                                .c_str()),
                10, "unknown key"},
        BadCase{"unknown_strategy",
                std::string(plan_text(kCluster, kWorkload,
                                      "strategy: { kind: allgossip }\n" + kTraining)
                                .c_str()),
                9, "allgossip"},
        BadCase{"grid_mismatch",
                std::string(plan_text(kCluster, kWorkload,
                                      "strategy: { kind: torus2d, grid: [3, 3] }\n" + kTraining)
                                .c_str()),
                9, "does not multiply"},
        BadCase{
            "too_many_workers",
            std::string(
                plan_text(kCluster, kWorkload, kStrategy + "training: { workers: 17 }\n").c_str()),
            10, "more devices"},
        BadCase{"file_not_found",
                std::string(("cluster: missing/topology.yaml\n" + std::string(kWorkload) +
                             kStrategy + kTraining)
                                .c_str()),
                1, "file not found"},
        BadCase{"yaml_syntax",
                std::string(
                    plan_text(kCluster, kWorkload, "strategy: { kind: ring\n" + kTraining).c_str()),
                0, "YAML syntax"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(PlanLoader, MissingPlanFileIsAnInputError) {
  EXPECT_THROW(load_plan("/nonexistent/plan.yaml"), InputError);
}

TEST(PlanLoader, TopologyErrorsNameTheTopologyFile) {
  fs::path dir = fs::temp_directory_path() / "scaleout-topo-error";
  fs::create_directories(dir);
  std::ofstream(dir / "topo.yaml")
      << "name: t\ndevice: { flops: 1TFLOPS }\nnic: { bandwidth: 10Gbps }\nbogus: 1\n";
  std::ofstream(dir / "plan.yaml") << "cluster: topo.yaml\n" << kWorkload << kStrategy << kTraining;
  try {
    load_plan((dir / "plan.yaml").string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "topo.yaml").string() + ":4:"), std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
}

TEST(PlanLoader, PricePerDeviceHourIsOptional) {
  fs::path dir = fs::temp_directory_path() / "scaleout-topo-price";
  fs::create_directories(dir);
  const std::string topo = "name: t\ndevice: { flops: 1TFLOPS }\nnic: { bandwidth: 10Gbps }\n";
  std::ofstream(dir / "priced.yaml") << topo << "price_per_device_hour: 2.5\n";
  std::ofstream(dir / "free.yaml") << topo;
  std::ofstream(dir / "bad.yaml") << topo << "price_per_device_hour: -1\n";
  EXPECT_EQ(load_cluster((dir / "priced.yaml").string()).price_per_device_hour, 2.5);
  EXPECT_FALSE(load_cluster((dir / "free.yaml").string()).price_per_device_hour.has_value());
  try {
    load_cluster((dir / "bad.yaml").string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:4: field 'price_per_device_hour'"),
              std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scaleout::core
