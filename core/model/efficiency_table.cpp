#include "core/model/efficiency_table.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"

namespace scaleout::core {

namespace {

double six_digits(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return std::strtod(buf, nullptr);
}

ShapeMeasure time_one(const MatrixProduct& p, int microbatch, int tensor, double peak,
                      ProductTimer& timer) {
  ShapeMeasure m{p, microbatch, tensor, timer.seconds(p), 0};
  m.efficiency = p.flops() / (m.seconds * peak);
  if (!(m.seconds > 0) || !std::isfinite(m.seconds))
    throw InputError("", 0, "device.flops",
                     "the " + p.name + " product's timer gave no positive time");
  if (m.efficiency > 1) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "the %s product (micro-batch %d, tensor %d) ran at %.3g FLOP/s, above the "
                  "claimed peak %.3g: give the device's peak",
                  p.name.c_str(), microbatch, tensor, p.flops() / m.seconds, peak);
    throw InputError("", 0, "device.flops", buf);
  }
  return m;
}

}  // namespace

EfficiencyTable measure_efficiency_table(const TransformerShape& t,
                                         const std::vector<int>& microbatches,
                                         const std::vector<int>& tensors, double peak_flops,
                                         ProductTimer& timer,
                                         const std::function<void(int, int)>& progress) {
  // Every product with its micro-batch and tensor degree, in the order they are timed.
  std::vector<std::tuple<MatrixProduct, int, int>> products;
  for (int b : microbatches)
    for (int tp : tensors) {
      for (LayerKind kind : layer_kinds(t))  // a MoE model times both kinds' attention too
        for (const MatrixProduct& p : layer_products(t, b, tp, kind.moe))
          products.emplace_back(p, b, tp);
      products.emplace_back(logit_product(t, b, tp), b, tp);
    }
  EfficiencyTable out;
  std::map<double, std::pair<double, int>> sums;  // size -> (efficiency sum, count)
  int done = 0;
  for (const auto& [p, b, tp] : products) {
    out.measures.push_back(time_one(p, b, tp, peak_flops, timer));
    auto& s = sums[six_digits(p.flops())];
    s.first += out.measures.back().efficiency;
    ++s.second;
    if (progress) progress(++done, static_cast<int>(products.size()));
  }
  for (const auto& [size, s] : sums) out.by_size.push_back({size, s.first / s.second});
  return out;
}

std::string model_with_efficiency_table(const std::string& model_path, const EfficiencyTable& table,
                                        const std::string& measured_on) {
  Workload w = load_workload(model_path);
  if (!w.transformer)
    throw InputError(model_path, 0, "transformer",
                     "the products timed are a transformer's: the model gives no transformer:");
  YAML::Node root = YAML::LoadFile(model_path);
  YAML::Node points(YAML::NodeType::Sequence);
  for (const auto& [size, efficiency] : table.by_size) {
    char s[32], e[32];
    std::snprintf(s, sizeof s, "%.6gGFLOP", size / 1e9);
    std::snprintf(e, sizeof e, "%.4g", efficiency);
    YAML::Node point(YAML::NodeType::Sequence);
    point.push_back(std::string(s));
    point.push_back(std::string(e));
    point.SetStyle(YAML::EmitterStyle::Flow);
    points.push_back(point);
  }
  root["efficiency_by_size"] = points;
  std::ostringstream text;
  text << "# " << (w.name.empty() ? model_path : w.name)
       << " with efficiency_by_size measured by `scaleout calibrate` (" << measured_on
       << "):\n# each point is a matrix product's FLOPs on one device and its share of the "
          "topology's peak.\n"
       << "# From " << model_path << " (its comments are not copied).\n";
  YAML::Emitter emitter;
  emitter << root;
  text << emitter.c_str() << "\n";
  return text.str();
}

}  // namespace scaleout::core
