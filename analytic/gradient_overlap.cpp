#include "analytic/gradient_overlap.hpp"

#include <algorithm>

#include "core/model/overlap_slowdown.hpp"
#include "core/parallel/model_split.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/programs/gradient_buckets.hpp"

namespace scaleout::sim {

GradientOverlap walk_gradient_overlap(const core::Plan& plan, const core::ParallelState& state,
                                      const core::ModelParallelWork& work, LayerBeside forward,
                                      LayerBeside backward,
                                      const std::function<double(double)>& bucket_seconds) {
  const core::ModelSplit& s = state.split();
  GradientOverlap out;
  double slow = plan.cluster.device.overlap_slowdown;
  for (int stage = 0; stage < s.pipeline; ++stage) {
    core::BucketQueue queue(work, s, stage);
    std::vector<double> extra;
    double exposed = 0;
    for (const core::PipeOp& op : core::stage_schedule(plan.parallelism->schedule, stage,
                                                       s.pipeline, s.microbatches, s.chunks)) {
      double added = 0;
      if (queue.walks(op)) {
        LayerBeside l = op.kind == core::PipeOp::Kind::kForward ? forward : backward;
        core::GradientBucket first;  // overlap_param_gather: before the op's first layer
        if (queue.first_gather(op, first)) added += bucket_seconds(first.bytes);
        for (int layer = 0; layer < core::chunk_layers(s, stage, op.chunk); ++layer) {
          core::GradientBucket bucket;
          if (queue.take(op, bucket))
            added += core::span_beside(l.compute, l.beside + bucket_seconds(bucket.bytes), slow) -
                     core::span_beside(l.compute, l.beside, slow);
          queue.layer_done(op, layer);
        }
      }
      extra.push_back(added);
      exposed += added;
    }
    double tail = 0;
    for (const core::GradientBucket& bucket : queue.rest()) tail += bucket_seconds(bucket.bytes);
    out.op_extra.push_back(std::move(extra));
    out.tail.push_back(tail);
    out.exposed.push_back(exposed + tail);
  }
  return out;
}

}  // namespace scaleout::sim
