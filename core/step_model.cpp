#include "core/step_model.hpp"

#include <algorithm>
#include <cmath>

#include "core/strategy.hpp"

namespace scaleout::core {

namespace {

// Evenly sized buckets when the model lists no layers: bucket i is ready after (i+1)/n of backward.
void even_buckets(StepModel& m, double fusion_bytes) {
  double bytes = m.gradient_bytes();
  int n = std::max(1, static_cast<int>(std::ceil(bytes / fusion_bytes - 1e-9)));
  for (int i = 0; i < n; ++i)
    m.buckets.push_back({split_part(Span{0, m.elements}, n, i), static_cast<double>(i + 1) / n});
}

// Layers in backward order fill buckets of at least `fusion_bytes`; a bucket is ready when the
// backward pass has produced its last layer. Parameters the layers do not list join the last one.
void layer_buckets(StepModel& m, const Workload& w, double fusion_bytes) {
  double share_total = 0;
  for (const auto& l : w.layers) share_total += l.backward_share;
  std::int64_t begin = 0, pending = 0;
  double share_done = 0;
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    pending += static_cast<std::int64_t>(std::llround(w.layers[i].parameters));
    share_done += w.layers[i].backward_share / share_total;
    bool last = i + 1 == w.layers.size();
    if (last) pending = m.elements - begin;
    if (pending > 0 && (last || pending * m.bytes_per_element >= fusion_bytes)) {
      pending = std::min(pending, m.elements - begin);
      m.buckets.push_back({Span{begin, pending}, last ? 1.0 : share_done});
      begin += pending;
      pending = 0;
    }
  }
}

}  // namespace

StepModel make_step_model(const Plan& plan) {
  StepModel m;
  const Workload& w = plan.workload;
  double flops = w.flops_per_sample * plan.training.batch_per_worker / w.efficiency;
  m.forward_flops = flops / 3;
  m.backward_flops = flops - m.forward_flops;
  m.elements = static_cast<std::int64_t>(std::llround(w.parameters));
  m.bytes_per_element = plan.training.gradient_bytes_per_element;
  if (!plan.training.overlap) {
    m.buckets.push_back({Span{0, m.elements}, 1.0});
  } else if (w.layers.empty()) {
    even_buckets(m, plan.training.fusion_buffer);
  } else {
    layer_buckets(m, w, plan.training.fusion_buffer);
  }
  return m;
}

}  // namespace scaleout::core
