// Gradient fusion: how the parts of the gradient that backward produces leave as buckets, in the
// three ways make_step_model knows (training.fusion.kind):
// - legacy (the default): what is ready at one ready point leaves at once, in even buckets of at
//   most training.fusion_buffer bytes;
// - horovod: a background cycle every cycle_time; whatever is ready at a cycle boundary (counted
//   from the start of backward) leaves together, in buckets of at most `threshold` bytes;
// - ddp: PyTorch DDP's buckets: when the workload lists its tensors (`tensors:`), whole tensors
//   in backward order fill a bucket until it holds first_bucket (the first) or bucket_cap bytes,
//   as PyTorch assigns them; otherwise fixed buckets of `bucket_cap` bytes with a small first
//   bucket. A bucket leaves once its last element is ready.
// Every kind keeps the property the engines are tested for: a bigger gradient never leaves later
// or in fewer or smaller buckets, so it never takes less time.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model/step_model.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::core {

// What backward produces at one moment (a fraction of it done): `count` gradient elements.
struct ReadyPoint {
  std::int64_t count = 0;
  double fraction = 1;
};

// How many buckets fuse_buckets makes, without making them (closed forms: DDP's count can be
// large).
double count_fused_buckets(const Plan& plan, const std::vector<ReadyPoint>& points);

// The buckets, in the order they leave, for ready points in backward order (Horovod's cycles group
// the points by the nominal backward time).
std::vector<Bucket> fuse_buckets(const Plan& plan, const std::vector<ReadyPoint>& points);

// Seconds of a Horovod cycle for the step model (0 for the other kinds or without overlap): the
// engines round each bucket's ready time up to the next cycle boundary after backward started.
double fusion_cycle(const Plan& plan);

// The step's nominal backward seconds (no stragglers) on the plan's device.
double nominal_backward_s(const Plan& plan);

// The field that sets the bucket size for the plan's fusion kind ("training.fusion_buffer",
// "training.fusion.threshold" or "training.fusion.bucket_cap") and its line (for errors).
const char* fusion_size_field(const Plan& plan);
int fusion_size_line(const Plan& plan);

// "legacy" | "horovod" | "ddp".
const char* fusion_kind_name(Training::Fusion::Kind kind);

}  // namespace scaleout::core
