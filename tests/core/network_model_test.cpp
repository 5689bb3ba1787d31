// The cluster's `network_model` with a latency factor: read, refused when malformed (file, line,
// field), and written back by the plan writer.
#include <gtest/gtest.h>

#include <string>

#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

using testing::expect_refused;
using testing::kInlineCluster;
using testing::kInlineWorkload;
using testing::load_text;
using testing::Refusal;

// The inline cluster (lines 1-7), `model` as line 8 of the cluster, the workload and a ring.
std::string plan_with(const std::string& model) {
  return std::string(kInlineCluster) + "  network_model: " + model + "\n" + kInlineWorkload +
         "strategy: { kind: ring }\ntraining: { workers: 8 }\n";
}

TEST(NetworkModel, NameAloneKeepsTheModelsOwnFactor) {
  Plan p = load_text("nm-name", plan_with("cm02"));
  EXPECT_EQ(p.cluster.network_model, "cm02");
  EXPECT_FALSE(p.cluster.latency_factor.has_value());
  Plan q = load_text("nm-name-map", plan_with("{ name: lv08 }"));
  EXPECT_EQ(q.cluster.network_model, "lv08");
  EXPECT_FALSE(q.cluster.latency_factor.has_value());
}

TEST(NetworkModel, MappingSetsTheLatencyFactor) {
  Plan p = load_text("nm-map", plan_with("{ name: lv08, latency_factor: 1 }"));
  EXPECT_EQ(p.cluster.network_model, "lv08");
  ASSERT_TRUE(p.cluster.latency_factor.has_value());
  EXPECT_EQ(*p.cluster.latency_factor, 1.0);
  EXPECT_EQ(p.cluster.latency_factor_line, 8);
}

TEST(NetworkModel, PlanWriterWritesTheFactorBack) {
  Plan p = load_text("nm-write", plan_with("{ name: cm02, latency_factor: 2.5 }"));
  Plan back = load_text("nm-write-back", plan_to_yaml(p));
  EXPECT_EQ(back.cluster.network_model, "cm02");
  ASSERT_TRUE(back.cluster.latency_factor.has_value());
  EXPECT_EQ(*back.cluster.latency_factor, 2.5);
  // Without a factor, the name alone (as before).
  Plan plain = load_text("nm-plain", plan_with("lv08"));
  EXPECT_NE(plan_to_yaml(plain).find("network_model: lv08"), std::string::npos);
  EXPECT_FALSE(load_text("nm-plain-back", plan_to_yaml(plain)).cluster.latency_factor);
}

class RefusedModel : public ::testing::TestWithParam<Refusal> {};

TEST_P(RefusedModel, NamesFileLineAndWhy) {
  const Refusal& r = GetParam();
  expect_refused(r.name, r.yaml, r.line, r.expect);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, RefusedModel,
    ::testing::Values(
        Refusal{"negative", plan_with("{ name: lv08, latency_factor: -1 }"), 8,
                "network_model.latency_factor"},
        Refusal{"not_a_number", plan_with("{ name: lv08, latency_factor: fast }"), 8,
                "network_model.latency_factor"},
        Refusal{"too_large", plan_with("{ name: cm02, latency_factor: 1e9 }"), 8,
                "network_model.latency_factor"},
        Refusal{"not_finite", plan_with("{ name: cm02, latency_factor: .inf }"), 8,
                "network_model.latency_factor"},
        Refusal{"with_ib", plan_with("{ name: ib, latency_factor: 1 }"), 8, "message size"},
        Refusal{"unknown_key", plan_with("{ name: lv08, latency: 1 }"), 8, "latency"},
        Refusal{"no_name", plan_with("{ latency_factor: 1 }"), 8, "network_model.name"},
        Refusal{"unknown_name", plan_with("{ name: tcp, latency_factor: 1 }"), 8, "lv08"}),
    [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace scaleout::core
