// What one training step asks of each worker: forward and backward compute, and the gradient
// buckets that backward produces (one bucket without overlap, fusion-buffer sized ones with it).
#pragma once

#include <cstdint>
#include <vector>

#include "core/fabric.hpp"
#include "core/plan.hpp"

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

  double compute_flops() const { return forward_flops + backward_flops; }
  double gradient_bytes() const { return static_cast<double>(elements) * bytes_per_element; }
};

// Forward is a third of the FLOPs per sample and backward two thirds (the usual 1:2 split).
StepModel make_step_model(const Plan& plan);

}  // namespace scaleout::core
