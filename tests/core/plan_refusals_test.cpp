// Inputs that once loaded and ran with a wrong answer: each must now be refused with the file, the
// line and the field.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

using testing::expect_refused;
using testing::kInlineCluster;
using testing::kInlineWorkload;
using testing::Refusal;

// The inline cluster and workload (lines 1-8), then `rest` from line 9.
std::string plan(const std::string& rest) {
  return std::string(kInlineCluster) + kInlineWorkload + rest;
}

const std::string kRing = "strategy: { kind: ring }\n";   // line 9
const std::string kEight = "training: { workers: 8 }\n";  // line 10

class Refused : public ::testing::TestWithParam<Refusal> {};

TEST_P(Refused, NamesFileLineAndWhy) {
  const Refusal& r = GetParam();
  expect_refused(r.name, r.yaml, r.line, r.expect);
}

std::string with_cluster_line(const std::string& from, const std::string& to,
                              const std::string& rest) {
  std::string c = kInlineCluster;
  c.replace(c.find(from), from.size(), to);
  return c + kInlineWorkload + rest;
}

std::string with_workload(const std::string& workload, const std::string& rest) {
  return std::string(kInlineCluster) + workload + rest;
}

INSTANTIATE_TEST_SUITE_P(
    Integers, Refused,
    ::testing::Values(
        Refusal{"workers_past_int", plan(kRing + "training: { workers: 4294967297 }\n"), 10,
                "2147483647"},
        Refusal{"batch_past_int",
                plan(kRing + "training: { workers: 8, batch_per_worker: 2147483648 }\n"), 10,
                "2147483647"},
        Refusal{"samples_past_int",
                plan(kRing + "training: { workers: 8, batch_per_worker: 2147483647 }\n"), 10,
                "samples a step"},
        Refusal{"steps_past_int",
                plan(kRing + "training: { workers: 8, steps: 99999999999999999999 }\n"), 10,
                "whole number"},
        Refusal{"nodes_past_int",
                with_cluster_line("nodes: 2", "nodes: 4294967298", kRing + kEight), 7, "nodes"},
        Refusal{"grid_product_past_int",
                plan("strategy: { kind: torus2d, grid: [65536, 65536] }\n" + kEight), 9,
                "does not multiply"},
        Refusal{
            "parameters_absurd",
            with_workload("workload: { name: m, parameters: 1e13M, flops_per_sample: 1GFLOP }\n",
                          kRing + kEight),
            8, "1e+15"},
        Refusal{"seed_negative",
                plan(kRing + kEight +
                     "stragglers: { random: { distribution: exponential, mean: 1, seed: -1 } }\n"),
                11, "seed"}),
    [](const auto& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(
    NonFinite, Refused,
    ::testing::Values(
        Refusal{"bandwidth_overflows", with_cluster_line("100Gbps", "1e308GB/s", kRing + kEight), 6,
                "finite"},
        Refusal{"bandwidth_past_double", with_cluster_line("100Gbps", "1e400Gbps", kRing + kEight),
                6, "finite"},
        Refusal{"efficiency_nan",
                with_workload("workload: { name: m, parameters: 1M, flops_per_sample: 1GFLOP, "
                              "efficiency: .nan }\n",
                              kRing + kEight),
                8, "finite"},
        Refusal{"straggler_mean_nan",
                plan(kRing + kEight +
                     "stragglers: { random: { distribution: exponential, mean: .nan } }\n"),
                11, "finite"},
        Refusal{"straggler_sigma_inf",
                plan(kRing + kEight +
                     "stragglers: { random: { distribution: lognormal, sigma: .inf } }\n"),
                11, "finite"},
        Refusal{"straggler_probability_nan",
                plan(kRing + kEight +
                     "stragglers: { random: { distribution: bernoulli, probability: .nan, factor: "
                     "2 } }\n"),
                11, "finite"},
        Refusal{"straggler_factor_inf",
                plan(kRing + kEight + "stragglers: { slow: { workers: [1], factor: .inf } }\n"), 11,
                "finite"}),
    [](const auto& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(
    Nonsense, Refused,
    ::testing::Values(
        Refusal{"duplicate_key", plan(kRing + "training:\n  workers: 8\n  workers: 4\n"), 12,
                "training.workers': given twice"},
        Refusal{"duplicate_section", plan(kRing + kEight + "training: { workers: 4 }\n"), 11,
                "twice"},
        Refusal{"duplicate_inline_key", plan("strategy: { kind: ring, kind: ps }\n" + kEight), 9,
                "twice"},
        Refusal{"second_document", plan(kRing + kEight + "---\nname: other\n"), 11,
                "second YAML document"},
        Refusal{"complex_key", plan(kRing + kEight + "? [a, b]\n: 1\n"), 11, "complex key"},
        // Found by fuzz/plan_loader_fuzz.cpp: yaml-cpp's LoadAll yielded documents for ever.
        Refusal{"endless_documents", ",*", 1, "second YAML document"},
        Refusal{"failure_outside_fixed_nodes",
                plan(kRing + kEight + "failures: [{ node: 1, step: 1 }]\n"), 11,
                "not part of the job"},
        Refusal{"failure_outside_cluster",
                plan(kRing + kEight + "failures: [{ node: 9, step: 1 }]\n"), 11,
                "not part of the job"},
        Refusal{"softsync_past_workers", plan("strategy: { kind: ps, softsync: 9 }\n" + kEight), 9,
                "cannot exceed the 8 workers"},
        Refusal{"staleness_bound_negative",
                plan("strategy: { kind: ps, mode: async, staleness_bound: -1 }\n" + kEight), 9,
                "from 0"},
        Refusal{"slow_worker_missing",
                plan(kRing + kEight + "stragglers:\n  slow: { workers: [8], factor: 2 }\n"), 12,
                "does not exist"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(PlanRefusals, FailureOutsideAnAutoSizedJob) {
  // nodes: auto, 8 workers on 8-device nodes: the job is node 0 only.
  std::string cluster = kInlineCluster;
  cluster.replace(cluster.find("  nodes: 2\n"), 11, "");
  expect_refused("failure_auto",
                 cluster + kInlineWorkload + kRing + kEight + "failures: [{ node: 1, step: 1 }]\n",
                 10, "not part of the job");
  testing::load_text("failure_auto_ok", cluster + kInlineWorkload + kRing + kEight +
                                            "failures: [{ node: 0, step: 1 }]\n");
}

TEST(PlanRefusals, IncludesMustBeSmallRegularFiles) {
  expect_refused("include_dev_zero",
                 "cluster: /dev/zero\n" + std::string(kInlineWorkload) + kRing + kEight, 1,
                 "not a regular file");
  expect_refused("include_directory",
                 "cluster: /tmp\n" + std::string(kInlineWorkload) + kRing + kEight, 1,
                 "not a regular file");
  testing::TempDir dir("include_large_part");
  std::string big = dir.write("big.yaml", "name: big\n" + std::string(17u << 20, '#'));
  expect_refused("include_large",
                 "workload: " + big + "\n" + std::string(kInlineCluster) + kRing + kEight, 1,
                 "larger than 16 MiB");
}

TEST(PlanRefusals, LoadedPlanHasFiniteQuantities) {
  Plan p = testing::load_text(
      "finite", plan(kRing + "training: { workers: 16, batch_per_worker: 1000000 }\n"));
  EXPECT_EQ(p.training.workers, 16);
  EXPECT_EQ(p.training.batch_per_worker, 1000000);
  EXPECT_TRUE(std::isfinite(p.gradient_bytes()));
}

// Found by the fuzzer: an anchor on the document's own mapping, named again inside it, nests for
// ever; it must be refused, not overflow the stack.
TEST(Refusals, AnAliasInsideWhatItNamesIsRefused) {
  testing::TempDir dir("alias-inside");
  std::string file = dir.write("plan.yaml", "!nd: &torus2d\nkind*: *torus2d");
  EXPECT_THROW(load_plan(file), InputError);
}

}  // namespace
}  // namespace scaleout::core
