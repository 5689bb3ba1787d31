// Property: whatever one scalar of a bundled plan is replaced by, the loader either loads a plan
// whose quantities are finite and positive, or throws InputError: never another exception, never
// a crash. The plans' included cluster and workload are inlined first so that their scalars are
// mutated too.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::core {
namespace {

namespace fs = std::filesystem;

using Step = std::variant<std::string, std::size_t>;
using Path = std::vector<Step>;

// The plan with `cluster` and `workload` paths replaced by the mappings they name.
YAML::Node inlined(const fs::path& plan) {
  YAML::Node root = YAML::LoadFile(plan.string());
  for (const char* part : {"cluster", "workload"})
    if (root[part].IsScalar())
      root[part] = YAML::LoadFile((plan.parent_path() / root[part].Scalar()).string());
  return root;
}

void scalar_paths(const YAML::Node& node, Path& at, std::vector<Path>& out) {
  if (node.IsScalar()) out.push_back(at);
  if (node.IsMap())
    for (const auto& kv : node) {
      at.push_back(kv.first.Scalar());
      scalar_paths(kv.second, at, out);
      at.pop_back();
    }
  if (node.IsSequence())
    for (std::size_t i = 0; i < node.size(); ++i) {
      at.push_back(i);
      scalar_paths(node[i], at, out);
      at.pop_back();
    }
}

// A copy of `root` with the scalar at `path` replaced by `value`.
YAML::Node mutated(const YAML::Node& root, const Path& path, const std::string& value) {
  YAML::Node copy = YAML::Clone(root);
  YAML::Node node = copy;
  for (std::size_t i = 0; i + 1 < path.size(); ++i)
    std::visit([&](const auto& key) { node.reset(node[key]); }, path[i]);
  std::visit([&](const auto& key) { node[key] = value; }, path.back());
  return copy;
}

std::string describe(const Path& path) {
  std::string out;
  for (const auto& step : path)
    out += std::holds_alternative<std::string>(step)
               ? "." + std::get<std::string>(step)
               : "[" + std::to_string(std::get<std::size_t>(step)) + "]";
  return out;
}

void expect_sane(const Plan& p) {
  EXPECT_GE(p.training.workers, 1);
  EXPECT_GE(p.training.batch_per_worker, 1);
  EXPECT_GE(p.training.steps, 1);
  for (double v : {p.workload.parameters, p.workload.flops_per_sample, p.workload.efficiency,
                   p.cluster.device.flops, p.cluster.nic.bandwidth, p.cluster.intra_node.bandwidth,
                   p.strategy.chunk, p.training.fusion_buffer, p.gradient_bytes()}) {
    EXPECT_TRUE(std::isfinite(v)) << v;
    EXPECT_GT(v, 0);
  }
  for (double v : {p.cluster.nic.latency, p.cluster.intra_node.latency}) {
    EXPECT_TRUE(std::isfinite(v)) << v;
    EXPECT_GE(v, 0);
  }
  EXPECT_GE(p.strategy.ps_servers, 1);
}

TEST(PlanMutation, EveryScalarOfEveryBundledPlanLoadsSanelyOrIsRefused) {
  const std::vector<std::string> bad = {"-1",   "0",          "1e400", ".nan",
                                        ".inf", "4294967297", "abc",   ""};
  testing::TempDir dir("mutation");
  int loads = 0, refusals = 0;
  for (const auto& plan : testing::bundled_plans()) {
    fs::path entry_path(plan);
    YAML::Node root = inlined(entry_path);
    std::vector<Path> paths;
    Path at;
    scalar_paths(root, at, paths);
    for (const auto& path : paths)
      for (const auto& value : bad) {
        SCOPED_TRACE(entry_path.filename().string() + describe(path) + " = '" + value + "'");
        std::ofstream(dir.path() / "plan.yaml") << YAML::Dump(mutated(root, path, value)) << "\n";
        try {
          expect_sane(load_plan((dir.path() / "plan.yaml").string()));
          ++loads;
        } catch (const InputError&) {
          ++refusals;
        } catch (const std::exception& e) {
          ADD_FAILURE() << "not an InputError: " << e.what();
        }
      }
  }
  EXPECT_GT(refusals, 100);
  EXPECT_GT(loads, 10);  // names and other free text load whatever they say
}

}  // namespace
}  // namespace scaleout::core
