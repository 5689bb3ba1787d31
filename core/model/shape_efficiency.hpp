// Compute by shape: the share of the device's peak a matrix product reaches grows with its size
// (small micro-batches and narrow tensor shards run slower). A transformer workload may give it
// as a table (`efficiency_by_size`), interpolated here; without one every product runs at the
// workload's single `efficiency`.
#pragma once

#include "core/plan/plan.hpp"

namespace scaleout::core {

// The efficiency of one matrix product of `flops` FLOPs on one device: the table's, linear in
// log(size) between its points and held at its ends; the workload's `efficiency` without a table.
double product_efficiency(const Workload& w, double flops);

// Effective FLOPs (FLOPs over their efficiency) of one transformer layer's forward on one device
// of a tensor group of `tensor`, for a micro-batch of `microbatch` sequences: the QKV, the
// attention's two s x s products, the output projection and the MLP's two products, each at its
// own size. `attention_again` adds the attention's products once more (selective recomputation).
double layer_forward_effective_flops(const Workload& w, int microbatch, int tensor,
                                     bool attention_again = false);
// The output layer's forward (2 s h V), likewise.
double logit_forward_effective_flops(const Workload& w, int microbatch, int tensor);

}  // namespace scaleout::core
