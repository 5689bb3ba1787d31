#include "core/model/step_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/model/compute_rate.hpp"
#include "core/plan/input_error.hpp"
#include "core/programs/fusion.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

namespace {

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

}  // namespace

std::int64_t gradient_elements(const Plan& plan) {
  return static_cast<std::int64_t>(std::llround(plan.workload.parameters));
}

double count_buckets(const Plan& plan) {
  return count_fused_buckets(plan, ready_points(plan, gradient_elements(plan)));
}

StepModel make_step_model(const Plan& plan) {
  StepModel m;
  const Workload& w = plan.workload;
  double flops = w.flops_per_sample * plan.training.batch_per_worker / compute_efficiency(plan);
  m.forward_flops = flops / 3;
  m.backward_flops = flops - m.forward_flops;
  m.elements = gradient_elements(plan);
  m.bytes_per_element = plan.training.gradient_bytes_per_element;
  double buckets = count_buckets(plan);
  if (buckets > kMaxBuckets)
    throw InputError(
        plan.file, fusion_size_line(plan), fusion_size_field(plan),
        "makes " + std::to_string(std::llround(buckets)) + " buckets a step (at most " +
            std::to_string(static_cast<long>(kMaxBuckets)) + "): choose larger buckets");
  m.buckets = fuse_buckets(plan, ready_points(plan, m.elements));
  m.cycle_s = fusion_cycle(plan);
  return m;
}

}  // namespace scaleout::core
