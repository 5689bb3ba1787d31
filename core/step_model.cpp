#include "core/step_model.hpp"

#include <algorithm>
#include <cmath>

#include "core/strategy.hpp"

namespace scaleout::core {

namespace {

// What backward produces at one moment (a fraction of it done): `count` gradient elements.
struct ReadyPoint {
  std::int64_t count = 0;
  double fraction = 1;
};

// Leaves what is ready at one point in buckets of at most `fusion_bytes` (even pieces).
void add_buckets(StepModel& m, std::int64_t& begin, const ReadyPoint& point, double fusion_bytes) {
  if (point.count <= 0) return;
  double bytes = static_cast<double>(point.count) * m.bytes_per_element;
  auto pieces = static_cast<std::int64_t>(std::ceil(bytes / fusion_bytes - 1e-9));
  pieces = std::clamp<std::int64_t>(pieces, 1, point.count);
  Span span{begin, point.count};
  for (std::int64_t i = 0; i < pieces; ++i)
    m.buckets.push_back(
        {split_part(span, static_cast<int>(pieces), static_cast<int>(i)), point.fraction});
  begin += point.count;
}

// A model that lists no layers produces its gradient evenly: kEvenSlices equal shares, each
// ready when its share of backward is done.
void even_buckets(StepModel& m, double fusion_bytes) {
  std::int64_t begin = 0;
  for (int i = 0; i < kEvenSlices; ++i)
    add_buckets(m, begin,
                {split_part(Span{0, m.elements}, kEvenSlices, i).count,
                 static_cast<double>(i + 1) / kEvenSlices},
                fusion_bytes);
}

// Layers in backward order: each layer's gradient is ready when backward has produced it.
// Parameters the layers do not list join the last one; layers beyond the parameters are cut.
void layer_buckets(StepModel& m, const Workload& w, double fusion_bytes) {
  double share_total = 0;
  for (const auto& l : w.layers) share_total += l.backward_share;
  std::int64_t begin = 0;
  double share_done = 0;
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    share_done += w.layers[i].backward_share / share_total;
    bool last = i + 1 == w.layers.size();
    std::int64_t count =
        last ? m.elements - begin
             : std::min(static_cast<std::int64_t>(std::llround(w.layers[i].parameters)),
                        m.elements - begin);
    add_buckets(m, begin, {count, last ? 1.0 : share_done}, fusion_bytes);
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
