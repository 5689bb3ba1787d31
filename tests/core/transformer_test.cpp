// A transformer's derived figures against published ones and the papers' closed forms.
#include "core/model/transformer.hpp"

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

TransformerShape llama2_70b() {
  TransformerShape t;
  t.layers = 80;
  t.hidden = 8192;
  t.heads = 64;
  t.kv_heads = 8;
  t.ffn_hidden = 28672;
  t.vocabulary = 32000;
  t.sequence = 4096;
  t.mlp = MlpKind::kSwiglu;
  t.positions = PositionKind::kRotary;
  t.tied_embeddings = false;
  return t;
}

TEST(Transformer, Llama2With70BParameters) {
  // Llama 2 70B (Touvron et al. 2023) as released: 68,976,648,192 parameters. By hand, a layer:
  // attention 8192 x (8192 + 2 x 1024) + 8192 x 8192 = 150,994,944, MLP 3 x 8192 x 28672 =
  // 704,643,072, two RMSNorms 2 x 8192; 80 layers, then the input embedding and the untied output
  // layer 2 x 32000 x 8192 and the final norm 8192.
  const double published = 68'976'648'192.0;
  double by_hand =
      80 * (8192.0 * (8192 + 2 * 1024) + 8192.0 * 8192 + 3 * 8192.0 * 28672 + 2 * 8192) +
      2 * 32000.0 * 8192 + 8192;
  EXPECT_DOUBLE_EQ(by_hand, published);
  // The count keeps the attention's biases and LayerNorm's 4h and leaves out the final norm:
  // 80 x (18432 + 16384) - 8192 = 2,777,088 more (0.004%).
  EXPECT_DOUBLE_EQ(transformer_parameters(llama2_70b()), published + 2'777'088);
  EXPECT_NEAR(transformer_parameters(llama2_70b()) / published, 1.0, 1e-4);
}

TEST(Transformer, SwigluLayerHasThreeMlpMatricesWithoutBiases) {
  TransformerShape gelu = llama2_70b(), swiglu = gelu;
  gelu.mlp = MlpKind::kGelu;
  double h = 8192, f = 28672;
  EXPECT_DOUBLE_EQ(layer_parameters(swiglu) - layer_parameters(gelu), h * f - (f + h));
}

TEST(Transformer, SwigluForwardFlopsByHand) {
  TransformerShape t = llama2_70b();
  double s = 4096, h = 8192, kv = 1024, f = 28672;
  double matrices = h * (h + 2 * kv) + h * h + 3 * h * f;
  EXPECT_DOUBLE_EQ(layer_forward_flops(t), 2 * s * matrices + 4 * s * s * h);
}

TEST(Transformer, RotaryPositionsAndUntiedEmbeddings) {
  TransformerShape t = gpt(24, 1024, 16);
  double V = 51200, s = 2048, h = 1024;
  EXPECT_DOUBLE_EQ(embedding_parameters(t), (V + s) * h);
  t.positions = PositionKind::kRotary;
  EXPECT_DOUBLE_EQ(embedding_parameters(t), V * h);
  t.tied_embeddings = false;
  EXPECT_DOUBLE_EQ(embedding_parameters(t), 2 * V * h);
}

// BLOOM-176B (Le Scao et al. 2022, arXiv:2211.05100, Table 3): 70 layers of hidden 14,336 and
// 112 heads, ALiBi positions (no parameters), tied embeddings over the vocabulary of 250,680
// padded to 250,880 for tensor parallelism, 176,247M parameters. 12 l h^2 + 13 l h + V h =
// 172,637,552,640 + 13,045,760 + 3,596,615,680 = 176,247,214,080 (the embedding's layer norm and
// the final norm, 4h, are not counted).
TEST(Transformer, Bloom176BWithAlibiPositions) {
  TransformerShape t = gpt(70, 14336, 112);
  t.vocabulary = 250880;
  t.positions = PositionKind::kAlibi;
  EXPECT_DOUBLE_EQ(transformer_parameters(t), 176'247'214'080.0);
  EXPECT_NEAR(transformer_parameters(t) / 176'247e6, 1.0, 1e-5);
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

TEST(Transformer, ActivationsFollowTheMlpWidth) {
  // The MLP's inner activations are 2 x 2 s b f bytes (GeLU's input and output) of Korthikanti et
  // al.'s 24 split s b h; swiglu keeps the fused gate and up (2 x 2 s b f) and the down
  // projection's input (2 s b f).
  TransformerShape wide = gpt(96, 12288, 96);
  wide.ffn_hidden = 8 * 12288;
  double sbh = 2048.0 * 2 * 12288;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(wide, 2, 8, false, Recompute::kSelective),
                   sbh * (10 + (8 + 4 * 8.0) / 8));
  TransformerShape llama = llama2_70b();
  double s = 4096, h = 8192, f = 28672;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(llama, 1, 8, true, Recompute::kSelective),
                   (s * h * (10 + 8) + 6 * s * f) / 8);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(llama, 1, 8, true, Recompute::kFull), 2 * s * h / 8);
}

// Under FP8 products each linear layer's input is kept as its FP8 copy, a byte where 2 were. GPT-3
// 175B: whole 10 - 1 (QKV input) - 1 (first MLP input) = 8; the split 24 less the projection's
// input (1: its context, h wide) and GeLU's output, the down projection's input (f / h = 4):
// 19. Llama 2 70B (swiglu): 8 whole, its 8 attention less 1, 6 f less f. Full recomputation's
// layer input stays at 16 bits.
TEST(Transformer, Fp8KeepsEachLinearInputAsAByte) {
  TransformerShape t = gpt(96, 12288, 96);
  double sbh = 2048.0 * 2 * 12288, as_h = 5.0 * 96 * 2048 / 12288;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 2, 1, false, Recompute::kNone, true),
                   sbh * (8 + 19 + as_h));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 2, 8, false, Recompute::kSelective, true),
                   sbh * (8 + 19.0 / 8));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(t, 2, 8, false, Recompute::kFull, true), 2 * sbh);
  TransformerShape llama = llama2_70b();
  double s = 4096, h = 8192, f = 28672;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(llama, 1, 8, true, Recompute::kSelective, true),
                   (s * h * (8 + 7) + 5 * s * f) / 8);
}

}  // namespace
}  // namespace scaleout::core
