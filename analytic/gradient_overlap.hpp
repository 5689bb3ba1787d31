// overlap_grad_reduce (core/programs/gradient_buckets.hpp) in closed form: each stage walks its
// schedule with the same queue of gradient buckets as the training program, and a layer that has a
// bucket exchanged beside its compute takes max(compute, beside + exchange) instead of max(compute,
// beside), where `beside` is what already runs beside it, the compute slowed by what runs beside
// it (core::span_beside, the device's overlap_slowdown). With overlap_param_gather each chunk's
// first forward gathers its parameter buckets the same way, the first before its first layer.
#pragma once

#include <functional>
#include <vector>

#include "core/model/model_parallel_work.hpp"
#include "core/parallel/parallel_state.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::sim {

struct GradientOverlap {
  std::vector<std::vector<double>> op_extra;  // [stage][op in schedule order]: seconds added
  std::vector<double> tail;                   // [stage]: the buckets still waiting at the end
  std::vector<double> exposed;                // [stage]: the ops' extra seconds and the tail
};

// One layer's compute and what already runs beside it (tp_comm_overlap's tensor chunks).
struct LayerBeside {
  double compute = 0;
  double beside = 0;
};

// `forward`, `backward`: one layer's; `bucket_seconds`: one bucket's exchange by its bytes.
// REQUIRES: work.overlap_grad_reduce.
GradientOverlap walk_gradient_overlap(const core::Plan& plan, const core::ParallelState& state,
                                      const core::ModelParallelWork& work, LayerBeside forward,
                                      LayerBeside backward,
                                      const std::function<double(double)>& bucket_seconds);

}  // namespace scaleout::sim
