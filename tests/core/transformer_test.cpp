// A transformer's derived figures against published ones and the papers' closed forms.
#include "core/transformer.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace scaleout::core {
namespace {

TransformerShape gpt(int layers, int hidden, int heads) {
  TransformerShape t;
  t.layers = layers;
  t.hidden = hidden;
  t.heads = heads;
  t.sequence = 2048;
  t.vocabulary = 51200;
  t.ffn_hidden = 4 * hidden;
  t.kv_heads = heads;
  return t;
}

// Narayanan et al. 2021, Table 1: layers, hidden size, heads and the published parameter count
// in billions (rounded to 0.1B).
struct Row {
  int layers, hidden, heads;
  double billions;
};

TEST(Transformer, ParametersMatchNarayananTable1) {
  const Row rows[] = {{24, 2304, 24, 1.7},      {30, 3072, 32, 3.6},     {36, 4096, 32, 7.5},
                      {40, 6144, 48, 18.4},     {48, 8192, 64, 39.1},    {60, 10240, 80, 76.1},
                      {80, 12288, 96, 145.6},   {96, 16384, 128, 310.1}, {105, 20480, 128, 529.6},
                      {128, 25600, 160, 1008.0}};
  for (const Row& r : rows)
    EXPECT_NEAR(transformer_parameters(gpt(r.layers, r.hidden, r.heads)) / 1e9, r.billions, 0.0501)
        << r.layers << " layers";
}

TEST(Transformer, FlopsFollowThePapersClosedForms) {
  TransformerShape t = gpt(96, 12288, 96);
  double s = 2048, l = 96, h = 12288, V = 51200;
  double model = 72 * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  double megatron = 96 * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  EXPECT_NEAR(model_flops_per_sequence(t) / model, 1.0, 1e-12);
  EXPECT_NEAR(megatron_flops_per_sequence(t) / megatron, 1.0, 1e-12);
}

TEST(Transformer, GroupedQueryAttentionHasFewerParameters) {
  TransformerShape full = gpt(32, 4096, 32), grouped = full;
  grouped.kv_heads = 8;
  // Keys and values shrink from h x h each to h x h/4 each: 1.5 h^2 (+ 1.5 h biases) less a layer.
  double h = 4096;
  EXPECT_DOUBLE_EQ(layer_parameters(full) - layer_parameters(grouped), 1.5 * h * h + 1.5 * h);
}

TEST(Transformer, ActivationsFollowKorthikantiTable2) {
  TransformerShape t = gpt(96, 12288, 96);
  double sbh = 2048.0 * 2 * 12288, as_h = 5.0 * 96 * 2048 / 12288;  // micro-batch of 2
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 2, 1, false, Recompute::kNone), sbh * (34 + as_h));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 2, 8, false, Recompute::kNone),
                   sbh * (10 + 24.0 / 8 + as_h / 8));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 2, 8, true, Recompute::kNone), sbh * (34 + as_h) / 8);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 2, 8, false, Recompute::kSelective),
                   sbh * (10 + 24.0 / 8));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 2, 8, true, Recompute::kSelective), sbh * 34 / 8);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 2, 8, false, Recompute::kFull), 2 * sbh);
}

}  // namespace
}  // namespace scaleout::core
