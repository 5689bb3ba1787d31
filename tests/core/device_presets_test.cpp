// Device presets: the bundled file, a topology naming one, overrides, and the refusals.
#include "core/plan/device_presets.hpp"

#include <gtest/gtest.h>

#include "core/model/compute_rate.hpp"
#include "core/model/device_compute.hpp"
#include "core/plan/plan_writer.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

std::string preset_plan(const std::string& device, const std::string& training_extra = "") {
  return "cluster:\n"
         "  name: c\n"
         "  devices_per_node: 8\n"
         "  device: " +
         device +
         "\n"
         "  intra_node: { bandwidth: 150GB/s, latency: 1us }\n"
         "  nic: { bandwidth: 100Gbps, latency: 2us }\n"
         "workload: { name: m, transformer: { layers: 2, hidden: 1024, heads: 16, sequence: 1024, "
         "vocabulary: 32000 } }\n"
         "strategy: { kind: ring }\n"
         "training: { workers: 8" +
         training_extra + " }\n";
}

const DevicePreset& preset(const std::string& id) {
  for (const DevicePreset& p : bundled_device_presets())
    if (p.id == id) return p;
  throw std::runtime_error("no preset " + id);
}

TEST(DevicePresets, TheBundledFileListsTheDevicesTeamsBook) {
  for (const char* id : {"v100-sxm2-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5-80gb",
                         "h100-pcie-80gb", "h200-sxm-141gb", "b200-sxm-180gb", "gh200-96gb",
                         "mi250x", "mi300x", "l40s", "rtx-3090", "rtx-4090"}) {
    const DevicePreset& p = preset(id);
    EXPECT_FALSE(p.sources.empty()) << id;
    EXPECT_GT(p.device.memory, 8e9) << id;
    EXPECT_GT(p.device.memory_bandwidth, 5e11) << id;
    EXPECT_GT(p.device.multiprocessors, 40) << id;
  }
  // Datasheet figures: A100 SXM 312 TFLOP/s bf16, 108 SMs; H100 SXM 989 TFLOP/s bf16.
  EXPECT_DOUBLE_EQ(preset("a100-sxm4-80gb").device.flops, 312e12);
  EXPECT_EQ(preset("a100-sxm4-80gb").device.multiprocessors, 108);
  EXPECT_NEAR(preset("h100-sxm5-80gb").device.flops, 989e12, 1e12);
  // A memory ceiling only where a measurement is cited: the A100 80GB's (1.80 of 2.04 TB/s).
  EXPECT_DOUBLE_EQ(preset("a100-sxm4-80gb").device.memory_ceiling, 0.88);
  EXPECT_EQ(preset("a100-sxm4-40gb").device.memory_ceiling, 0);
  // A fused attention ceiling where a paper measured the kernel: FlashAttention-2's 73 % on the
  // A100, FlashAttention-3's 740 of 989.4 TFLOP/s on the H100 SXM5; none on the MI300X.
  EXPECT_DOUBLE_EQ(preset("a100-sxm4-80gb").device.attention_ceiling, 0.73);
  EXPECT_DOUBLE_EQ(preset("a100-sxm4-40gb").device.attention_ceiling, 0.73);
  EXPECT_DOUBLE_EQ(preset("h100-sxm5-80gb").device.attention_ceiling, 0.748);
  EXPECT_EQ(preset("mi300x").device.attention_ceiling, 0);
  // The cited overlap slowdown (18.9 %) on the kinds the study measured, none elsewhere.
  for (const char* id :
       {"a100-sxm4-40gb", "a100-sxm4-80gb", "a100-pcie-80gb", "h100-sxm5-80gb", "h100-pcie-80gb"})
    EXPECT_DOUBLE_EQ(preset(id).device.overlap_slowdown, 0.189) << id;
  EXPECT_EQ(preset("v100-sxm2-32gb").device.overlap_slowdown, 0);
  EXPECT_EQ(preset("mi300x").device.overlap_slowdown, 0);
}

TEST(DevicePresets, ATopologyTakesThePresetAndOverridesAField) {
  Plan p = testing::load_text("preset-a100", preset_plan("{ preset: a100-sxm4-80gb }"));
  EXPECT_DOUBLE_EQ(p.cluster.device.flops, 312e12);
  EXPECT_DOUBLE_EQ(p.cluster.device.memory, 80e9);
  EXPECT_EQ(p.cluster.device.multiprocessors, 108);
  Plan q = testing::load_text("preset-a100-40",
                              preset_plan("{ preset: a100-sxm4-80gb, memory: 40GB, name: mine }"));
  EXPECT_DOUBLE_EQ(q.cluster.device.memory, 40e9);
  EXPECT_EQ(q.cluster.device.name, "mine");
  EXPECT_EQ(q.cluster.device.multiprocessors, 108);
}

TEST(DevicePresets, ThePlansPrecisionPicksThePeak) {
  Plan p = testing::load_text("preset-fp8",
                              preset_plan("{ preset: h100-sxm5-80gb }", ", precision: fp8"));
  EXPECT_NEAR(p.cluster.device.flops, 1979e12, 2e12);
  EXPECT_EQ(p.cluster.device.element_bytes, 1);
  // An explicit flops is the user's: the precision does not replace it.
  Plan q = testing::load_text(
      "preset-flops",
      preset_plan("{ preset: h100-sxm5-80gb, flops: 500TFLOPS }", ", precision: fp8"));
  EXPECT_DOUBLE_EQ(q.cluster.device.flops, 500e12);
}

TEST(DevicePresets, RefusalsNameTheFieldAndTheChoices) {
  testing::expect_refused("preset-unknown", preset_plan("{ preset: a100 }"), 4,
                          "'a100' is not a device preset; the presets are: ");
  testing::expect_refused("preset-unknown-lists", preset_plan("{ preset: a100 }"), 4,
                          "a100-sxm4-80gb");
  testing::expect_refused("preset-fp8-v100",
                          preset_plan("{ preset: v100-sxm2-32gb }", ", precision: fp8"), 9,
                          "'training.precision': the device V100-SXM2-32GB has no fp8 peak");
  testing::expect_refused("preset-bad-type",
                          preset_plan("{ preset: v100-sxm2-32gb }", ", precision: int4"), 9,
                          "'int4' is not one of");
  testing::expect_refused("preset-bad-tile",
                          preset_plan("{ preset: a100-sxm4-80gb, matmul_tile: [128] }"), 4,
                          "expected [rows, columns]");
  testing::expect_refused("no-flops", preset_plan("{ name: x }"), 4, "flops");
}

// A saved plan (the GUI's, a sweep child's) keeps the device's figures and leaves the default
// efficiency out, so the compute model answers for it as for the plan it came from.
TEST(DevicePresets, SavedPlansKeepTheFiguresAndTheComputeModel) {
  Plan p = testing::load_text(
      "preset-save",
      preset_plan("{ preset: h100-sxm5-80gb, kernel_gap: 3us }", ", precision: fp8"));
  ASSERT_TRUE(compute_from_device(p));
  Plan q = testing::load_text("preset-saved", plan_to_yaml(p));
  EXPECT_TRUE(compute_from_device(q));
  const DeviceSpec &a = p.cluster.device, &b = q.cluster.device;
  EXPECT_DOUBLE_EQ(a.flops, b.flops);
  EXPECT_DOUBLE_EQ(a.memory_bandwidth, b.memory_bandwidth);
  EXPECT_EQ(a.multiprocessors, b.multiprocessors);
  EXPECT_EQ(b.tile_rows, 128);
  EXPECT_EQ(b.tile_cols, 256);
  EXPECT_DOUBLE_EQ(a.matmul_ceiling, b.matmul_ceiling);
  EXPECT_DOUBLE_EQ(b.kernel_gap, 3e-6);
  EXPECT_EQ(b.element_bytes, 1);
  EXPECT_DOUBLE_EQ(compute_efficiency(p), compute_efficiency(q));
  // The saved plan keeps the peaks: its precision, edited, picks another one.
  std::string text = plan_to_yaml(p);
  text.replace(text.find("precision: fp8"), 14, "precision: bf16");
  EXPECT_NEAR(testing::load_text("preset-saved-bf16", text).cluster.device.flops, 989.4e12, 1e9);
  // A peak changed after loading (as the GUI's field does) is written and stands.
  p.cluster.device.flops = 500e12;
  EXPECT_DOUBLE_EQ(testing::load_text("preset-saved-500", plan_to_yaml(p)).cluster.device.flops,
                   500e12);
  // A memory ceiling written stands.
  p.cluster.device.memory_ceiling = 0.9;
  EXPECT_DOUBLE_EQ(
      testing::load_text("preset-saved-memory", plan_to_yaml(p)).cluster.device.memory_ceiling,
      0.9);
  // So does a fused attention ceiling.
  p.cluster.device.attention_ceiling = 0.6;
  EXPECT_DOUBLE_EQ(testing::load_text("preset-saved-attention", plan_to_yaml(p))
                       .cluster.device.attention_ceiling,
                   0.6);
  // An attention over the whole sequence (not causal) is written back as one.
  ASSERT_TRUE(p.workload.transformer && p.workload.transformer->causal);
  p.workload.transformer->causal = false;
  EXPECT_FALSE(
      testing::load_text("preset-saved-causal", plan_to_yaml(p)).workload.transformer->causal);
  // So does an overlap slowdown.
  p.cluster.device.overlap_slowdown = 0.3;
  EXPECT_DOUBLE_EQ(
      testing::load_text("preset-saved-slowdown", plan_to_yaml(p)).cluster.device.overlap_slowdown,
      0.3);
}

TEST(DevicePresets, AnOverlapSlowdownOutsideZeroToOneIsRefusedNamingTheField) {
  testing::expect_refused("preset-slowdown-big",
                          preset_plan("{ preset: a100-sxm4-80gb, overlap_slowdown: 1.5 }"), 4,
                          "overlap_slowdown");
  Plan off = testing::load_text("preset-slowdown-off",
                                preset_plan("{ preset: a100-sxm4-80gb, overlap_slowdown: 0 }"));
  EXPECT_EQ(off.cluster.device.overlap_slowdown, 0);
}

TEST(DevicePresets, AFileWithARepeatedPresetIsRefusedWithItsLine) {
  testing::TempDir dir("presets-twice");
  std::string one =
      "  - preset: x\n    peak: { bf16: 1TFLOPS }\n    memory: 1GB\n    sources: [s]\n";
  std::string file = dir.write("presets.yaml", "presets:\n" + one + one);
  try {
    load_device_presets(file);
    FAIL() << "loaded";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 6);
    EXPECT_NE(std::string(e.what()).find("listed twice"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace scaleout::core
