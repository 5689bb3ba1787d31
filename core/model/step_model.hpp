// What one training step asks of each worker: forward and backward compute, and the gradient
// buckets that backward produces (one bucket without overlap; with it, see make_step_model).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/programs/fabric.hpp"

namespace scaleout::core {

struct Bucket {
  Span span;                  // gradient elements
  double ready_fraction = 1;  // share of the backward pass done when the bucket is ready
};

struct StepModel {
  double forward_flops = 0;   // effective FLOP: already divided by the workload's efficiency,
  double backward_flops = 0;  // so time = flops / device peak
  std::int64_t elements = 0;  // gradient elements
  int bytes_per_element = 4;
  std::vector<Bucket> buckets;  // in the order they become ready (backward order)
  // Horovod's cycle (seconds; 0: none): a bucket leaves at the first multiple of it, counted from
  // the start of backward, at or after its ready point (core/programs/fusion.hpp).
  double cycle_s = 0;

  // When a bucket ready `ready_s` seconds into backward may leave (the next cycle boundary).
  double leaves_at(double ready_s) const {
    return cycle_s > 0 ? std::ceil(ready_s / cycle_s - 1e-9) * cycle_s : ready_s;
  }

  double compute_flops() const { return forward_flops + backward_flops; }
  double gradient_bytes() const { return static_cast<double>(elements) * bytes_per_element; }
};

// Slices of backward of a model that lists no layers (gradient produced evenly).
constexpr int kEvenSlices = 8;

// The most buckets a step may have (each is a separate exchange in every engine).
constexpr double kMaxBuckets = 1e6;

// The gradient's elements: one per parameter.
std::int64_t gradient_elements(const Plan& plan);

// How many buckets make_step_model makes for `plan`, without making them.
double count_buckets(const Plan& plan);

// Forward is a third of the FLOPs per sample and backward two thirds (the usual 1:2 split), at the
// efficiency core/model/compute_rate.hpp chooses. The buckets below are the legacy fusion kind's;
// the others are in core/programs/fusion.hpp. Without overlap the whole gradient is one bucket at
// the end of backward. With overlap, parts of the gradient are ready at fixed points of backward
// that do not depend on its size: the end of each listed layer (backward order), or of each of
// kEvenSlices even slices when the model lists none. What is ready at one point leaves at once, in
// buckets of at most `fusion_buffer` bytes (as Horovod's tensor fusion takes what is ready and
// fits; nothing ready waits for later layers). So a bigger gradient on the same plan only makes
// buckets larger or more numerous at the same moments, and never takes less time. Throws InputError
// naming the bucket size field when it would make more than kMaxBuckets buckets.
StepModel make_step_model(const Plan& plan);

}  // namespace scaleout::core
