// overlap_grad_reduce (core/gradient_buckets.hpp) in closed form: each stage walks its schedule
// with the same queue of gradient buckets as the training program, and a layer that has a bucket
// exchanged beside its compute takes max(compute, exchange) instead of its compute.
#pragma once

#include <functional>
#include <vector>

#include "core/model_parallel_work.hpp"
#include "core/parallel_state.hpp"
#include "core/plan.hpp"

namespace scaleout::sim {

struct GradientOverlap {
  std::vector<std::vector<double>> op_extra;  // [stage][op in schedule order]: seconds added
  std::vector<double> tail;                   // [stage]: the buckets still waiting at the end
  std::vector<double> exposed;                // [stage]: the ops' extra seconds and the tail
};

// `layer_forward`, `layer_backward`: one layer's compute; `bucket_seconds`: one bucket's
// exchange by its bytes. REQUIRES: work.overlap_grad_reduce.
GradientOverlap walk_gradient_overlap(const core::Plan& plan, const core::ParallelState& state,
                                      const core::ModelParallelWork& work, double layer_forward,
                                      double layer_backward,
                                      const std::function<double(double)>& bucket_seconds);

}  // namespace scaleout::sim
