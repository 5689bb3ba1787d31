// Measuring compute by shape: a transformer's own matrix products (core/model/transformer_products)
// timed at each micro-batch and tensor degree a split may use, each time turned into the share of
// the device's peak it reached, and the points written as the model's `efficiency_by_size` table.
// `calibrate --backend cuda --model` times them with cuBLAS; tests time them with a stand-in.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/transformer_products.hpp"

namespace scaleout::core {

// Times one product (all of its batch) on one device.
class ProductTimer {
 public:
  virtual ~ProductTimer() = default;
  virtual double seconds(const MatrixProduct& product) = 0;
};

struct ShapeMeasure {
  MatrixProduct product;
  int microbatch = 1, tensor = 1;
  double seconds = 0;
  double efficiency = 0;  // FLOPs / (seconds x peak)
};

struct EfficiencyTable {
  std::vector<ShapeMeasure> measures;              // in the order timed
  std::vector<std::pair<double, double>> by_size;  // (FLOPs, efficiency), sizes ascending
};

// Times the layer's products and the output layer's at every micro-batch x tensor degree and
// makes the table: sizes rounded to 6 significant digits, products of one size averaged.
// `progress(done, total)` after each product. Throws InputError (field `device.flops`, naming
// the product) when a product runs above `peak_flops`: the claimed peak is not the device's.
EfficiencyTable measure_efficiency_table(const TransformerShape& t,
                                         const std::vector<int>& microbatches,
                                         const std::vector<int>& tensors, double peak_flops,
                                         ProductTimer& timer,
                                         const std::function<void(int, int)>& progress = {});

// The model file at `model_path` with `efficiency_by_size` set to the table (any earlier table
// replaced), headed by a comment naming what measured it. Throws InputError when the file is not
// a workload with `transformer:`.
std::string model_with_efficiency_table(const std::string& model_path, const EfficiencyTable& table,
                                        const std::string& measured_on);

}  // namespace scaleout::core
