// Measuring compute by shape: a layer's products are the ones its FLOPs count, the table made from
// a stand-in timer holds each product's hand-computed share of the peak, a timer faster than the
// peak is refused, and the written model loads with that table.
#include "core/model/efficiency_table.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/model/shape_efficiency.hpp"
#include "core/model/transformer.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"

namespace scaleout::core {
namespace {

// A GPU as a roofline: a launch cost, then the product at 80% of the peak.
class RooflineTimer : public ProductTimer {
 public:
  explicit RooflineTimer(double peak) : peak_(peak) {}
  double seconds(const MatrixProduct& p) override {
    ++calls;
    return 1e-5 + p.flops() / (0.8 * peak_);
  }
  int calls = 0;

 private:
  double peak_;
};

TransformerShape small_shape() {
  TransformerShape t;
  t.layers = 4, t.hidden = 1024, t.heads = 16, t.sequence = 512, t.vocabulary = 1000;
  t.ffn_hidden = 4096, t.kv_heads = 16;
  return t;
}

TEST(TransformerProducts, ALayersProductsAreItsForwardFlops) {
  TransformerShape t = small_shape();
  double b = 2, s = 512, h = 1024;
  for (int tensor : {1, 2, 4}) {
    double sum = 0;
    for (const MatrixProduct& p : layer_products(t, 2, tensor)) sum += p.flops();
    // 24 b s h^2 (QKV 6, projection 2, MLP 16) + 4 b s^2 h (scores and context), over the group.
    EXPECT_DOUBLE_EQ(sum, (24 * b * s * h * h + 4 * b * s * s * h) / tensor) << tensor;
  }
  EXPECT_DOUBLE_EQ(logit_product(t, 2, 4).flops(), 2 * b * s * h * 1000 / 4);
  t.mlp = MlpKind::kSwiglu;  // gate and up fused: the MLP's 16 b s h^2 becomes 24
  for (int tensor : {1, 2, 4}) {
    double sum = 0;
    for (const MatrixProduct& p : layer_products(t, 2, tensor)) sum += p.flops();
    EXPECT_DOUBLE_EQ(sum, (32 * b * s * h * h + 4 * b * s * s * h) / tensor) << tensor;
    EXPECT_DOUBLE_EQ(sum, b * layer_forward_flops(t) / tensor) << tensor;
  }
}

TEST(TransformerProducts, TensorDegreesDivideHeadsAndTheNode) {
  TransformerShape t = small_shape();
  t.heads = 12, t.kv_heads = 12;
  EXPECT_EQ(tensor_degrees(t, 8, false), (std::vector<int>{1, 2, 4}));  // 3, 6: not in 8
  t.heads = 96, t.kv_heads = 96;
  EXPECT_EQ(tensor_degrees(t, 8, false), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(tensor_degrees(t, 8, true), (std::vector<int>{1, 2, 4, 8, 16, 24, 32, 48, 96}));
  t.kv_heads = 2;  // grouped-query attention: the key-value heads divide too
  EXPECT_EQ(tensor_degrees(t, 8, false), (std::vector<int>{1, 2}));
}

TEST(EfficiencyTable, HoldsEachProductsShareOfThePeak) {
  const double peak = 1e14;
  RooflineTimer timer(peak);
  int last_done = 0, last_total = 0;
  EfficiencyTable table =
      measure_efficiency_table(small_shape(), {1, 2}, {1, 2, 4}, peak, timer,
                               [&](int done, int total) { last_done = done, last_total = total; });
  EXPECT_EQ(timer.calls, 2 * 3 * 7);
  EXPECT_EQ(static_cast<int>(table.measures.size()), timer.calls);
  EXPECT_EQ(last_done, last_total);
  // QKV at micro-batch 1 on one device: 512 x 1024 times 1024 x 3072.
  double qkv = 2.0 * 512 * 3072 * 1024;
  const ShapeMeasure& first = table.measures.front();
  EXPECT_EQ(first.product.name, "qkv");
  EXPECT_DOUBLE_EQ(first.product.flops(), qkv);
  EXPECT_DOUBLE_EQ(first.efficiency, qkv / ((1e-5 + qkv / 0.8e14) * 1e14));
  // Sizes ascend, one point per distinct size, and bigger products reach more of the peak.
  std::set<double> sizes;
  for (const auto& m : table.measures) sizes.insert(m.product.flops());
  EXPECT_EQ(table.by_size.size(), sizes.size());
  for (std::size_t i = 1; i < table.by_size.size(); ++i) {
    EXPECT_LT(table.by_size[i - 1].first, table.by_size[i].first);
    EXPECT_LT(table.by_size[i - 1].second, table.by_size[i].second);
  }
  EXPECT_LT(table.by_size.back().second, 0.8);
}

TEST(EfficiencyTable, AProductFasterThanThePeakIsRefused) {
  RooflineTimer timer(2e14);  // runs at 1.6e14 against a claimed 1e14
  try {
    measure_efficiency_table(small_shape(), {1}, {1}, 1e14, timer);
    FAIL() << "a product above the peak was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("device.flops"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("qkv"), std::string::npos) << e.what();
  }
}

TEST(EfficiencyTable, TheWrittenModelLoadsWithTheTable) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "scaleout-efficiency-table";
  fs::create_directories(dir);
  fs::path model = dir / "model.yaml", written = dir / "measured.yaml";
  std::ofstream(model) << "# a comment\nname: small\n"
                          "transformer: { layers: 4, hidden: 1024, heads: 16, sequence: 512, "
                          "vocabulary: 1000 }\nefficiency: 0.4\n"
                          "efficiency_by_size: [[1GFLOP, 0.1], [2GFLOP, 0.2]]\n";
  RooflineTimer timer(1e14);
  EfficiencyTable table = measure_efficiency_table(small_shape(), {1, 2, 4}, {1, 2}, 1e14, timer);
  std::ofstream(written) << model_with_efficiency_table(model.string(), table, "a stand-in");
  Workload w = load_workload(written.string());
  EXPECT_EQ(w.name, "small");
  EXPECT_EQ(w.efficiency, 0.4);
  ASSERT_EQ(w.efficiency_by_size.size(), table.by_size.size());  // the old table replaced
  for (const ShapeMeasure& m : table.measures)  // each measured product reads back its share
    EXPECT_NEAR(product_efficiency(w, m.product.flops()), m.efficiency, 1e-3 * m.efficiency)
        << m.product.name;
  fs::remove_all(dir);
}

TEST(EfficiencyTable, AModelWithoutATransformerIsRefused) {
  namespace fs = std::filesystem;
  fs::path model = fs::temp_directory_path() / "scaleout-efficiency-plain.yaml";
  std::ofstream(model) << "name: cnn\nparameters: 25M\nflops_per_sample: 12GFLOP\n";
  EXPECT_THROW(model_with_efficiency_table(model.string(), {}, "x"), InputError);
  fs::remove(model);
}

}  // namespace
}  // namespace scaleout::core
