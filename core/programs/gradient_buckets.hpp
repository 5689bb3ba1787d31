// Megatron-Core's --overlap-grad-reduce (parallelism.overlap_grad_reduce) as every engine runs it.
// The first stage's first chunk cuts its gradient at layer ends, in backward order, into buckets
// of at least the bucket size (Megatron-Core closes a bucket at the first parameter that takes it
// to its size); every other stage and chunk keeps its gradient as one bucket (Megatron-Core turns
// bucketing off there: distributed_data_parallel.py, as their exchange is off the critical path
// or, for later chunks, to keep fewer collectives). Only a
// chunk's last micro-batch's backward makes them (the others accumulate without exchanging); each
// bucket then waits for the data group, and every later layer of that op has the oldest waiting
// bucket of its chunk exchanged beside its compute. What still waits once the op is done (its
// last layer's bucket, a chunk's one bucket) is exchanged after the schedule, before the
// optimizer's step: the rank runs one exchange at a time, and a bucket exchanged beside a layer of
// a later op would hold that op, and the stages that wait for it, back where NCCL lets the
// compute go on. With --overlap-param-gather (and ZeRO-1) the same buckets carry the updated
// parameters' all-gather during each chunk's first forward of the next iteration, in forward
// order (the reverse of the gradient's): the first before the op's first layer, each next beside
// a layer, where Megatron-Core's forward pre-hooks wait for a bucket and start the next one's.
// The training program runs these walks on a fabric; the closed form times the same walks
// (analytic/gradient_overlap.hpp).
#pragma once

#include <deque>
#include <vector>

#include "core/model/model_parallel_work.hpp"
#include "core/parallel/pipeline_schedule.hpp"

namespace scaleout::core {

struct GradientBucket {
  double offset = 0;    // bytes into the stage's gradient
  double bytes = 0;     // its size
  int after_layer = 0;  // ready once this layer of the chunk (counted in backward order) is done
  int chunk = 0;
  bool parameters = false;  // the updated parameters' all-gather (overlap_param_gather)
};

// Megatron-Core's bucket size when none is given: max(40M, 1M x data) parameters.
double megatron_bucket_parameters(int data);

// The buckets of one chunk's `chunk_bytes` spread evenly over its `layers` layers, each closed at
// the first layer end that takes it to `bucket_bytes` (the last holds what is left).
std::vector<GradientBucket> chunk_buckets(double chunk_bytes, int layers, double bucket_bytes,
                                          int chunk);

// The buckets waiting for a stage's data group as it walks its schedule (see above).
class BucketQueue {
 public:
  // `work`: the plan's, with overlap_grad_reduce; `split`: its layers per stage and chunk. Each
  // chunk's share of the gradient follows its layers.
  BucketQueue(const ModelParallelWork& work, const ModelSplit& split, int stage);

  // Whether `op` runs its layers one at a time: it makes buckets, or gathers parameters.
  bool walks(const PipeOp& op) const;
  // overlap_param_gather: the bucket `op` gathers before its first layer, into `out`; false when
  // `op` is not its chunk's first forward.
  bool first_gather(const PipeOp& op, GradientBucket& out);
  // Takes the next bucket to exchange beside `op`'s next layer's compute into `out`: the oldest
  // waiting gradient bucket of its chunk, or the next parameters to gather; false when none.
  bool take(const PipeOp& op, GradientBucket& out);
  // `op`'s `layer` (0-based, in the order the op runs them) is done: the buckets it completed wait.
  void layer_done(const PipeOp& op, int layer);
  // The buckets still waiting, oldest first; none waits after.
  std::vector<GradientBucket> rest();

 private:
  bool makes_buckets(const PipeOp& op) const;
  bool gathers(const PipeOp& op) const;

  std::vector<std::vector<GradientBucket>> chunks_;  // [chunk]: in the order they become ready
  std::vector<std::size_t> made_;                    // [chunk]: how many have become ready
  std::vector<std::size_t> gathered_;  // [chunk]: parameter buckets gathered, last made first
  bool gather_parameters_ = false;
  std::deque<GradientBucket> waiting_;
  int microbatches_ = 1;
};

}  // namespace scaleout::core
