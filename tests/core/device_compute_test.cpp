// The compute model from the device's figures (core/model/device_compute.hpp), held to times worked
// out here by hand from tile counts, waves and bytes.
#include "core/model/device_compute.hpp"

#include <gtest/gtest.h>

#include "core/plan/device_presets.hpp"

namespace scaleout::core {
namespace {

// 4 multiprocessors of 1 TFLOP/s each, 128 x 128 tiles, no ceiling, no kernel gap, memory that
// never limits.
DeviceSpec four_unit_device() {
  DeviceSpec d;
  d.flops = 4e12;
  d.multiprocessors = 4;
  d.memory_bandwidth = 1e18;
  d.kernel_gap = 0;
  return d;
}

// One 128 x 128 tile with k = 1024: 2 x 128 x 128 x 1024 = 33,554,432 FLOP at 1 TFLOP/s.
constexpr double kTileSeconds = 33.554432e-6;

TEST(DeviceCompute, FullTilesInOneWaveRunAtThePeak) {
  DeviceSpec d = four_unit_device();
  // 2 x 2 tiles on 4 units: one wave, the whole product at 4 TFLOP/s.
  EXPECT_NEAR(matmul_seconds(d, {"p", 1, 256, 256, 1024}), kTileSeconds, 1e-12);
}

TEST(DeviceCompute, APartTileAndAPartWavePayInFull) {
  DeviceSpec d = four_unit_device();
  // 257 rows: 3 x 2 = 6 tiles, two waves on 4 units, though the FLOPs grew by 0.4%.
  EXPECT_NEAR(matmul_seconds(d, {"p", 1, 257, 256, 1024}), 2 * kTileSeconds, 1e-12);
  // A batch of 5 products of one tile each: 5 tiles, two waves.
  EXPECT_NEAR(matmul_seconds(d, {"p", 5, 128, 128, 1024}), 2 * kTileSeconds, 1e-12);
}

TEST(DeviceCompute, TheCeilingScalesTheTileRate) {
  DeviceSpec d = four_unit_device();
  d.matmul_ceiling = 0.8;
  EXPECT_NEAR(matmul_seconds(d, {"p", 1, 256, 256, 1024}), kTileSeconds / 0.8, 1e-12);
}

TEST(DeviceCompute, AThinProductRunsAtTheMemorysBandwidth) {
  DeviceSpec d = four_unit_device();
  d.multiprocessors = 1024;  // 1 TFLOP/s each: 32 x 32 tiles in one wave, 0.26 us
  d.flops = 1024e12;
  d.memory_bandwidth = 1e12;
  // k = 8: A 4096 x 8, B 8 x 4096, C 4096 x 4096 of 2 bytes: 33,685,504 bytes at 1 TB/s.
  EXPECT_NEAR(matmul_seconds(d, {"p", 1, 4096, 4096, 8}), 33.685504e-6, 1e-12);
}

TEST(DeviceCompute, TheMemoryCeilingSlowsWhatStreams) {
  DeviceSpec d = four_unit_device();
  d.kernel_gap = 0;
  d.memory_bandwidth = 1e12;
  EXPECT_NEAR(streaming_seconds(d, 1e9, 1), 1e-3, 1e-15);  // none measured: the datasheet's
  d.memory_ceiling = 0.8;
  EXPECT_NEAR(streaming_seconds(d, 1e9, 1), 1.25e-3, 1e-15);
  // A product's tiles run at the matmul ceiling as before; a thin product's bytes (the case
  // above: 33,685,504 bytes) at the memory's.
  EXPECT_NEAR(matmul_seconds(d, {"p", 1, 256, 256, 1024}), kTileSeconds, 1e-12);
  d.multiprocessors = 1024;
  d.flops = 1024e12;
  EXPECT_NEAR(matmul_seconds(d, {"p", 1, 4096, 4096, 8}), 33.685504e-6 / 0.8, 1e-12);
}

TEST(DeviceCompute, EachKernelAddsTheGap) {
  DeviceSpec d = four_unit_device();
  d.kernel_gap = 5e-6;
  EXPECT_NEAR(matmul_seconds(d, {"p", 1, 256, 256, 1024}), kTileSeconds + 5e-6, 1e-12);
  EXPECT_NEAR(streaming_seconds(d, 0, 3), 15e-6, 1e-12);
}

TEST(DeviceCompute, ElementWiseKernelsMoveTheLayersActivations) {
  // h 64, s 32, 2 heads, MLP 256, one sequence, no tensor split, 2-byte activations:
  // E = 2048, F = 8192, A = 2 x 32 x 32 = 2048 elements.
  //   layer norms 2 x (2 E x 2)              = 16,384 bytes
  //   bias-dropout-residual 2 x (3 E x 2 + E) = 28,672
  //   bias-GeLU 2 F x 2                       = 32,768
  //   softmax 2 A x 2, dropout 2 A x 2 + A    = 18,432
  // 96,256 bytes at 1 GB/s.
  DeviceSpec d = four_unit_device();
  d.memory_bandwidth = 1e9;
  TransformerShape t{1, 64, 2, 32, 10, 256, 2, 0};
  double products = 0;
  for (const MatrixProduct& p : layer_products(t, 1, 1)) products += matmul_seconds(d, p);
  LayerSeconds layer = layer_seconds(d, t, 1, 1);
  EXPECT_NEAR(layer.forward - products, 96.256e-6, 1e-9);
  // The attention's share (what selective recomputation redoes): 18,432 bytes and its products.
  double attention = 0;
  for (const MatrixProduct& p : layer_products(t, 1, 1))
    if (p.name == "scores" || p.name == "context") attention += matmul_seconds(d, p);
  EXPECT_NEAR(layer.attention_forward - attention, 18.432e-6, 1e-9);
}

TEST(DeviceCompute, SwigluReadsTheGateAndTheUpProjection) {
  // The shape above with a swiglu MLP: SiLU(gate) x up reads 2 F and writes F, 3 F x 2 = 49,152
  // bytes where bias-GeLU moved 32,768: 112,640 bytes at 1 GB/s.
  DeviceSpec d = four_unit_device();
  d.memory_bandwidth = 1e9;
  TransformerShape t{1, 64, 2, 32, 10, 256, 2, 0};
  t.mlp = MlpKind::kSwiglu;
  double products = 0;
  for (const MatrixProduct& p : layer_products(t, 1, 1)) products += matmul_seconds(d, p);
  EXPECT_NEAR(layer_seconds(d, t, 1, 1).forward - products, 112.64e-6, 1e-9);
}

TEST(DeviceCompute, SequenceParallelismSplitsTheResidualStreamsKernels) {
  // The shape above, tensor 2: the residual stream's kernels (layer norms, bias-dropout-residual:
  // 45,056 bytes whole) are split over the two devices with the sequence, the MLP's and the
  // attention's are split by the tensor degree either way.
  DeviceSpec d = four_unit_device();
  d.memory_bandwidth = 1e9;
  TransformerShape t{1, 64, 2, 32, 10, 256, 2, 0};
  double whole = layer_seconds(d, t, 1, 2, 1).forward;
  double split = layer_seconds(d, t, 1, 2, 2).forward;
  EXPECT_NEAR(whole - split, 22.528e-6, 1e-9);
}

// FlashAttention: with memory that never limits, the same products' tiles forward, and backward
// recomputes the scores (five products' work for two: 2.5x instead of the unfused 2x).
// h 256, 2 heads of 128, s 256, one sequence: scores 2 x (256 x 256 over k 128): 8 tiles, 2 waves
// of 4.194304 us; context 2 x (256 x 128 over k 256): 4 tiles, 1 wave of 8.388608 us. Forward
// 16.777216 us; flash backward 41.94304 us, unfused 33.554432 us (each gradient product again
// whole tiles: 8.388608 us each): 8.388608 us more.
TEST(DeviceCompute, FlashAttentionRecomputesTheScoresInBackward) {
  DeviceSpec d = four_unit_device();
  TransformerShape standard{1, 256, 2, 256, 10, 1024, 2, 0};
  TransformerShape flash = standard;
  flash.attention = AttentionKind::kFlash;
  flash.causal = false;  // every score tile computed, as the standard attention's
  LayerSeconds a = layer_seconds(d, standard, 1, 1), b = layer_seconds(d, flash, 1, 1);
  EXPECT_NEAR(a.attention_forward, 16.777216e-6,
              1e-10);  // the element-wise kernels' 1e-12 s at 1e18 B/s aside
  EXPECT_NEAR(b.attention_forward, 16.777216e-6,
              1e-10);                        // the element-wise kernels' 1e-12 s at 1e18 B/s aside
  EXPECT_NEAR(b.forward, a.forward, 1e-10);  // the element-wise kernels' 1e-12 s at 1e18 B/s aside
  EXPECT_NEAR(b.backward - a.backward, 8.388608e-6,
              1e-10);  // the element-wise kernels' 1e-12 s at 1e18 B/s aside
  // With a real memory, flash moves none of the scores' bytes: it can only be faster forward.
  d.memory_bandwidth = 1e12;
  EXPECT_LT(layer_seconds(d, flash, 1, 1).forward, layer_seconds(d, standard, 1, 1).forward);
}

// A causal mask: of the scores' 2 x 2 tiles of 128 (s 256) the kernel computes the 3 on and below
// the diagonal, (T + 1) / 2T = 3/4 of the products above: forward 12.582912 us, backward
// 31.45728 us. The standard attention computes every score and masks them after. Context 2 over a
// sequence of 512: each rank's two blocks of 256 (16.777216 us each, 33.554432 us unmasked) at the
// whole sequence's share, 5 of 8 tiles: 20.97152 us.
TEST(DeviceCompute, ACausalFlashKernelSkipsTheTilesAboveTheDiagonal) {
  DeviceSpec d = four_unit_device();
  TransformerShape t{1, 256, 2, 256, 10, 1024, 2, 0};
  t.attention = AttentionKind::kFlash;
  ASSERT_TRUE(t.causal);  // the default
  LayerSeconds causal = layer_seconds(d, t, 1, 1);
  EXPECT_NEAR(causal.attention_forward, 12.582912e-6, 1e-10);
  EXPECT_NEAR(causal.attention_backward, 31.45728e-6, 1e-10);
  TransformerShape standard = t;
  standard.attention = AttentionKind::kStandard;
  EXPECT_NEAR(layer_seconds(d, standard, 1, 1).attention_forward, 16.777216e-6, 1e-10);
  TransformerShape longer = t;
  longer.sequence = 512;
  EXPECT_NEAR(layer_seconds(d, longer, 1, 1, 1, 1, 2).attention_forward, 20.97152e-6, 1e-10);
  longer.causal = false;
  EXPECT_NEAR(layer_seconds(d, longer, 1, 1, 1, 1, 2).attention_forward, 33.554432e-6, 1e-10);
  // The fused kernel at its own ceiling, half the peak: twice as long; the other products and the
  // standard attention's keep the matmul rate.
  DeviceSpec slow = d;
  slow.attention_ceiling = 0.5;
  EXPECT_NEAR(layer_seconds(slow, t, 1, 1).attention_forward, 2 * 12.582912e-6, 1e-10);
  EXPECT_NEAR(layer_seconds(slow, t, 1, 1).forward - layer_seconds(d, t, 1, 1).forward,
              12.582912e-6, 1e-10);
  EXPECT_NEAR(layer_seconds(slow, standard, 1, 1).attention_forward, 16.777216e-6, 1e-10);
}

// FP8 computes the linear layers' products in fp8 and the attention's in 16 bits: with an fp8 peak
// twice the bf16 one, the flash kernel takes the bf16 time (12.582912 us as above) while the
// attention's share of the forward is all that keeps the layer from halving.
TEST(DeviceCompute, Fp8KeepsTheAttentionAtTheSixteenBitPeak) {
  DeviceSpec d = four_unit_device();
  d.memory_bandwidth = 1e30;
  d.kernel_gap = 0;
  TransformerShape t{1, 256, 2, 256, 10, 1024, 2, 0};
  t.attention = AttentionKind::kFlash;
  DeviceSpec fp8 = d;
  fp8.peaks = {{"bf16", d.flops}, {"fp8", 2 * d.flops}};
  fp8.flops = 2 * d.flops;
  fp8.element_bytes = 1;
  LayerSeconds bf16 = layer_seconds(d, t, 1, 1), eight = layer_seconds(fp8, t, 1, 1);
  EXPECT_NEAR(eight.attention_forward, 12.582912e-6, 1e-10);
  EXPECT_NEAR(eight.attention_forward, bf16.attention_forward, 1e-12);
  EXPECT_NEAR(eight.forward - eight.attention_forward, (bf16.forward - bf16.attention_forward) / 2,
              1e-12);
  // A topology's own flops stands for every product.
  fp8.flops_line = 3;
  EXPECT_NEAR(layer_seconds(fp8, t, 1, 1).attention_forward, 12.582912e-6 / 2, 1e-10);
}

TEST(DeviceCompute, BackwardRunsTwoProductsPerForwardProduct) {
  // Square products in whole tiles: each gradient product has the forward's FLOPs and tiles.
  DeviceSpec d = four_unit_device();
  d.memory_bandwidth = 1e30;
  TransformerShape t{1, 1024, 8, 1024, 10, 4096, 8, 0};
  LayerSeconds layer = layer_seconds(d, t, 1, 1);
  EXPECT_NEAR(layer.backward / layer.forward, 2.0, 0.01);
}

// The share of peak grows with the model on a real device, stays under its matmul ceiling, and a
// narrow model loses most to the element-wise kernels and the attention's s x s work.
TEST(DeviceCompute, EfficiencyGrowsWithTheHiddenSizeAndStaysUnderTheCeiling) {
  DeviceSpec d;
  for (const DevicePreset& p : bundled_device_presets())
    if (p.id == "a100-sxm4-80gb") d = p.device;
  ASSERT_GT(d.multiprocessors, 0);
  double last = 0;
  for (int hidden : {1024, 2048, 4096, 8192, 16384}) {
    TransformerShape t{1, hidden, hidden / 128, 2048, 51200, 4 * hidden, hidden / 128, 0};
    LayerSeconds layer = layer_seconds(d, t, 4, 1);  // 4 sequences: the gradients' sum amortized
    double flops = 4 * 3 * (24.0 * 2048 * hidden * hidden + 4.0 * 2048 * 2048 * hidden);
    double share = flops / ((layer.forward + layer.backward) * d.flops);
    EXPECT_GT(share, last) << hidden;
    EXPECT_LT(share, d.matmul_ceiling) << hidden;
    last = share;
  }
  EXPECT_GT(last, 0.9 * d.matmul_ceiling);  // hidden 16384: products dominate
}

}  // namespace
}  // namespace scaleout::core
