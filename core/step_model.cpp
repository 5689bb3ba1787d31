#include "core/step_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/input_error.hpp"
#include "core/strategy.hpp"

namespace scaleout::core {

namespace {

// What backward produces at one moment (a fraction of it done): `count` gradient elements.
struct ReadyPoint {
  std::int64_t count = 0;
  double fraction = 1;
};

// How many buckets of at most `fusion_bytes` the elements of one ready point leave in.
std::int64_t pieces(const ReadyPoint& point, int bytes_per_element, double fusion_bytes) {
  if (point.count <= 0) return 0;
  double bytes = static_cast<double>(point.count) * bytes_per_element;
  double n = std::ceil(bytes / fusion_bytes - 1e-9);
  return n >= static_cast<double>(point.count) ? point.count
                                               : std::max<std::int64_t>(1, std::llround(n));
}

// With overlap: a model that lists no layers produces its gradient evenly, kEvenSlices equal
// shares each ready when its share of backward is done; layers (backward order) are each ready
// when backward has produced them (parameters they do not list join the last one, layers beyond
// the parameters are cut). Without overlap: everything at the end.
std::vector<ReadyPoint> ready_points(const Plan& plan, std::int64_t elements) {
  const Workload& w = plan.workload;
  std::vector<ReadyPoint> points;
  if (!plan.training.overlap) return {{elements, 1.0}};
  if (w.layers.empty()) {
    for (int i = 0; i < kEvenSlices; ++i)
      points.push_back({split_part(Span{0, elements}, kEvenSlices, i).count,
                        static_cast<double>(i + 1) / kEvenSlices});
    return points;
  }
  double share_total = 0;
  for (const auto& l : w.layers) share_total += l.backward_share;
  std::int64_t begin = 0;
  double share_done = 0;
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    share_done += w.layers[i].backward_share / share_total;
    bool last = i + 1 == w.layers.size();
    std::int64_t count =
        last ? elements - begin
             : std::min(static_cast<std::int64_t>(std::llround(w.layers[i].parameters)),
                        elements - begin);
    points.push_back({count, last ? 1.0 : share_done});
    begin += count;
  }
  return points;
}

std::int64_t elements_of(const Plan& plan) {
  return static_cast<std::int64_t>(std::llround(plan.workload.parameters));
}

}  // namespace

double count_buckets(const Plan& plan) {
  double n = 0;
  double fusion =
      plan.training.overlap ? plan.training.fusion_buffer : std::numeric_limits<double>::infinity();
  for (const auto& p : ready_points(plan, elements_of(plan)))
    n += static_cast<double>(pieces(p, plan.training.gradient_bytes_per_element, fusion));
  return n;
}

StepModel make_step_model(const Plan& plan) {
  StepModel m;
  const Workload& w = plan.workload;
  double flops = w.flops_per_sample * plan.training.batch_per_worker / w.efficiency;
  m.forward_flops = flops / 3;
  m.backward_flops = flops - m.forward_flops;
  m.elements = elements_of(plan);
  m.bytes_per_element = plan.training.gradient_bytes_per_element;
  double buckets = count_buckets(plan);
  if (buckets > kMaxBuckets)
    throw InputError(
        plan.file, plan.training.fusion_line, "training.fusion_buffer",
        "makes " + std::to_string(std::llround(buckets)) + " buckets a step (at most " +
            std::to_string(static_cast<long>(kMaxBuckets)) + "): choose a larger fusion buffer");
  double fusion =
      plan.training.overlap ? plan.training.fusion_buffer : std::numeric_limits<double>::infinity();
  std::int64_t begin = 0;
  for (const auto& point : ready_points(plan, m.elements)) {
    std::int64_t n = pieces(point, m.bytes_per_element, fusion);
    Span span{begin, point.count};
    for (std::int64_t i = 0; i < n; ++i)
      m.buckets.push_back(
          {split_part(span, static_cast<int>(n), static_cast<int>(i)), point.fraction});
    begin += point.count;
  }
  return m;
}

}  // namespace scaleout::core
