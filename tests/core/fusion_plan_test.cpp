// The plan fields of fusion and compute (training.fusion, training.efficiency,
// workload.measured_throughput): loaded, written back the same, and every malformed value refused
// with the file, the line and the field.
#include <gtest/gtest.h>

#include <string>

#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

using testing::expect_refused;
using testing::kInlineCluster;
using testing::kInlineWorkload;
using testing::Refusal;
using Kind = Training::Fusion::Kind;

// The inline cluster and workload (lines 1-8), a ring (line 9), then `training` from line 10.
std::string plan(const std::string& training, const char* workload = kInlineWorkload) {
  return std::string(kInlineCluster) + workload + "strategy: { kind: ring }\n" + training;
}

const char* kMeasured =
    "workload: { name: m, parameters: 10M, flops_per_sample: 1GFLOP, "
    "measured_throughput: { V100: 360, P100: 220 } }\n";

Plan load_text(const std::string& name, const std::string& yaml) {
  testing::TempDir dir(name);
  return load_plan(dir.write("plan.yaml", yaml));
}

TEST(FusionPlan, LoadsEachKindAndTheComputeFields) {
  Plan p = load_text("fusion-ddp", plan("training:\n  workers: 8\n  overlap: true\n"
                                        "  fusion: { kind: ddp, bucket_cap: 10MiB, "
                                        "first_bucket: 512KiB }\n  efficiency: 0.35\n",
                                        kMeasured));
  EXPECT_EQ(p.training.fusion.kind, Kind::kDdp);
  EXPECT_EQ(p.training.fusion.bucket_cap, 10.0 * 1024 * 1024);
  EXPECT_EQ(p.training.fusion.first_bucket, 512.0 * 1024);
  EXPECT_EQ(p.training.efficiency, 0.35);
  ASSERT_EQ(p.workload.measured_throughput.size(), 2u);
  EXPECT_EQ(p.workload.measured_throughput[1].first, "P100");
  EXPECT_EQ(p.workload.measured_throughput[1].second, 220);
  Plan h = load_text("fusion-horovod",
                     plan("training: { workers: 8, fusion: { kind: horovod, cycle_time: 5ms, "
                          "threshold: 64MiB } }\n"));
  EXPECT_EQ(h.training.fusion.kind, Kind::kHorovod);
  EXPECT_DOUBLE_EQ(h.training.fusion.cycle_time, 5e-3);
  EXPECT_EQ(h.training.fusion.threshold, 64.0 * 1024 * 1024);
  Plan d = load_text("fusion-defaults", plan("training: { workers: 8, fusion: { kind: ddp } }\n"));
  EXPECT_EQ(d.training.fusion.bucket_cap, 25.0 * 1024 * 1024);  // PyTorch's defaults
  EXPECT_EQ(d.training.fusion.first_bucket, 1.0 * 1024 * 1024);
  Plan none = load_text("fusion-absent", plan("training: { workers: 8 }\n"));
  EXPECT_EQ(none.training.fusion.kind, Kind::kLegacy);
  EXPECT_FALSE(none.training.efficiency);
}

TEST(FusionPlan, SavedPlansRoundTrip) {
  for (const std::string& training :
       {std::string("training: { workers: 8, overlap: true, fusion: { kind: ddp, bucket_cap: "
                    "10MiB, first_bucket: 512KiB }, efficiency: 0.35 }\n"),
        std::string("training: { workers: 8, fusion: { kind: horovod, cycle_time: 2.5ms, "
                    "threshold: 32MiB } }\n"),
        std::string("training: { workers: 8, fusion_buffer: 16MiB }\n")}) {
    Plan p = load_text("fusion-save", plan(training, kMeasured));
    Plan back = load_text("fusion-back", plan_to_yaml(p));
    const auto &a = p.training.fusion, &b = back.training.fusion;
    EXPECT_EQ(a.kind, b.kind) << training;
    EXPECT_EQ(a.cycle_time, b.cycle_time);
    EXPECT_EQ(a.threshold, b.threshold);
    EXPECT_EQ(a.bucket_cap, b.bucket_cap);
    EXPECT_EQ(a.first_bucket, b.first_bucket);
    EXPECT_EQ(p.training.fusion_buffer, back.training.fusion_buffer);
    EXPECT_EQ(p.training.efficiency, back.training.efficiency);
    EXPECT_EQ(p.workload.measured_throughput, back.workload.measured_throughput);
  }
}

class FusionRefused : public ::testing::TestWithParam<Refusal> {};

TEST_P(FusionRefused, NamesFileLineAndField) {
  const Refusal& r = GetParam();
  expect_refused(r.name, r.yaml, r.line, r.expect);
}

std::string fusion(const std::string& mapping) {
  return plan("training:\n  workers: 8\n  fusion: " + mapping + "\n");  // line 12
}

std::string tensors_of(const std::string& list) {
  return std::string(kInlineCluster) +
         "workload: { name: m, parameters: 4M, flops_per_sample: 1GFLOP, tensors: " + list +
         " }\nstrategy: { kind: ring }\ntraining: { workers: 8 }\n";
}

TEST(FusionPlan, TensorsLoadWithRepeatsAndRoundTrip) {
  Plan p = load_text("tensors", tensors_of("[1M, { parameters: 1M, repeat: 2 }, 500K, 500000]"));
  ASSERT_EQ(p.workload.tensors.size(), 5u);
  EXPECT_EQ(p.workload.tensors[2], 1'000'000);
  EXPECT_EQ(p.workload.tensors[4], 500'000);
  Plan back = load_text("tensors-back", plan_to_yaml(p));
  EXPECT_EQ(back.workload.tensors, p.workload.tensors);
}

std::string workload_with(const std::string& measured) {
  return std::string(kInlineCluster) +
         "workload: { name: m, parameters: 10M, flops_per_sample: 1GFLOP, measured_throughput: " +
         measured + " }\nstrategy: { kind: ring }\ntraining: { workers: 8 }\n";
}

INSTANTIATE_TEST_SUITE_P(
    Fields, FusionRefused,
    ::testing::Values(
        Refusal{"fusion_kind_unknown", fusion("{ kind: nccl }"), 12, "training.fusion.kind"},
        Refusal{"fusion_kind_missing", fusion("{ threshold: 64MiB }"), 12, "kind"},
        Refusal{"fusion_not_mapping", fusion("ddp"), 12, "training.fusion"},
        Refusal{"fusion_other_kinds_knob", fusion("{ kind: ddp, threshold: 64MiB }"), 12,
                "threshold"},
        Refusal{"fusion_cycle_zero", fusion("{ kind: horovod, cycle_time: 0ms }"), 12,
                "cycle_time"},
        Refusal{"fusion_cycle_no_unit", fusion("{ kind: horovod, cycle_time: fast }"), 12,
                "cycle_time"},
        Refusal{"fusion_threshold_negative", fusion("{ kind: horovod, threshold: -1MiB }"), 12,
                "threshold"},
        Refusal{"fusion_cap_in_bits", fusion("{ kind: ddp, bucket_cap: 25Mbps }"), 12,
                "bucket_cap"},
        Refusal{"fusion_first_over_cap",
                fusion("{ kind: ddp, bucket_cap: 1MiB, first_bucket: 2MiB }"), 12, "first_bucket"},
        Refusal{"fusion_buffer_beside_ddp",
                plan("training:\n  workers: 8\n  fusion_buffer: 16MiB\n  fusion: { kind: ddp }\n"),
                12, "training.fusion_buffer"},
        Refusal{"efficiency_above_one", plan("training:\n  workers: 8\n  efficiency: 1.5\n"), 12,
                "training.efficiency"},
        Refusal{"efficiency_text", plan("training:\n  workers: 8\n  efficiency: high\n"), 12,
                "training.efficiency"},
        Refusal{"measured_negative", workload_with("{ V100: -3 }"), 8, "V100"},
        Refusal{"measured_text", workload_with("{ V100: fast }"), 8, "V100"},
        Refusal{"measured_list", workload_with("[360, 220]"), 8, "measured_throughput"},
        Refusal{"measured_empty", workload_with("{}"), 8, "measured_throughput"},
        Refusal{"tensors_short", tensors_of("[1M, 2M]"), 8, "add up to 3000000 parameters"},
        Refusal{"tensors_not_list", tensors_of("4M"), 8, "backward order"},
        Refusal{"tensors_fraction", tensors_of("[1.5, 3999998.5]"), 8, "whole number"},
        Refusal{"tensors_repeat_zero", tensors_of("[{ parameters: 4M, repeat: 0 }]"), 8,
                "repeat"}));

}  // namespace
}  // namespace scaleout::core
