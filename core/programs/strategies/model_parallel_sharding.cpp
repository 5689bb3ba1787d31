// ZeRO-2 and ZeRO-3 as DeepSpeed and FSDP run them, inside the model-parallel training program:
// each forward and backward walks its layers one at a time; ZeRO-3 gathers a layer's parameters
// over the data group before the layer runs (the next layer's while this one computes), and from
// ZeRO-2 on each layer's gradients are reduce-scattered while the next layer's backward runs. With
// context parallelism (FSDP's) a layer's attention and its exchanges run first, alone. The closed
// form times the same walk (core::sharded_layers_seconds).
#include "core/parallel/model_split.hpp"
#include "core/programs/strategies/model_parallel_rank.hpp"
#include "core/programs/strategies/model_parallel_training.hpp"
#include "core/programs/strategies/ring_phases.hpp"

namespace scaleout::core {

namespace {

// Segment `segment` of a gather labelled `label` (labels differ per step, op, layer and gather,
// so a segment that never arrived keeps an older label).
std::uint64_t shard_tag(std::uint64_t label, int segment) {
  return (std::uint64_t{1} << 41) + label * 4099 + static_cast<std::uint64_t>(segment);
}

}  // namespace

// An all-gather of `span` over `group` (the data group, or a context group) by a ring; checked:
// every segment arrives from its owner.
void ModelParallelTraining::gather_shards(Fabric& group, const Rank& rank, Span span,
                                          std::uint64_t label,
                                          ModelParallelStepTimes& times) const {
  int n = group.size();
  RingGroup ring = strided_ring(0, 1, n, group.rank());
  if (rank.checks)
    rank.checks->label(split_part(span, n, owned_segment(ring)),
                       shard_tag(label, owned_segment(ring)));
  ring_allgather(group, ring, span);
  if (!rank.checks) return;
  for (int j = 0; j < n; ++j)
    times.wrong += rank.checks->mislabelled(split_part(span, n, j), shard_tag(label, j));
}

// Gradients (a layer's, or a bucket's) reduce-scattered over `group` by a ring; checked: ones from
// every member sum to the group's size in the segment this rank keeps.
void ModelParallelTraining::reduce_shards(Fabric& group, const Rank& rank, Span span,
                                          ModelParallelStepTimes& times) const {
  int n = group.size();
  RingGroup ring = strided_ring(0, 1, n, group.rank());
  if (rank.checks) rank.checks->fill(span, 1.0f);
  ring_reduce_scatter(group, ring, span);
  if (rank.checks)
    times.wrong +=
        rank.checks->differs(split_part(span, n, owned_segment(ring)), static_cast<float>(n));
}

void ModelParallelTraining::run_sharded_op(const Rank& rank, const PipeOp& op, std::size_t index,
                                           ModelParallelStepTimes& times) const {
  Fabric& fabric = rank.fabric;
  const LayerWalk walk = layer_walk(rank, op);
  const auto [forward, output_layer, layers, flops, allreduces, attention] = walk;
  int gathers = forward ? work_.gathers_forward : work_.gathers_backward;
  bool reduce = !forward;
  std::uint64_t first = layer_labels(times.step, index, layers) * 4;  // room for 4 gathers a layer
  auto gather_layer = [&](int layer) {
    for (int g = 0; g < gathers; ++g)
      gather_shards(rank.data, rank, shard_span(),
                    first + static_cast<std::uint64_t>(layer) * 4 + g, times);
  };
  auto timed = [&](double& into, auto&& work) {
    double start = fabric.now();
    work();
    into += fabric.now() - start;
  };
  if (output_layer && !forward)  // the output layer's backward comes first
    timed(times.compute_s,
          [&] { fabric.device().compute(2 * work_.logit_forward_flops * compute_scale_); });
  timed(times.data_s, [&] { gather_layer(0); });
  std::uint64_t attention_label = layer_labels(times.step, index, layers);
  for (int layer = 0; layer < layers; ++layer) {
    // With context parallelism the attention and its exchanges first, the rest beside the
    // collectives.
    if (attention > 0) run_context_attention(rank, walk, attention_label + layer, times);
    double start = fabric.now();
    Device::ComputeTicket ticket = fabric.device().compute_async(flops);
    if (layer + 1 < layers) gather_layer(layer + 1);
    if (reduce && layer > 0) reduce_shards(rank.data, rank, shard_span(), times);
    double slowed = fabric.device().communicated_beside(start);
    double done = fabric.device().wait_compute(ticket);
    times.compute_s += done - start - slowed;
    times.data_s += slowed + fabric.now() - done;  // what the compute did not hide, and its cost
    run_tensor_allreduces(rank, allreduces, times);
  }
  if (reduce) timed(times.data_s, [&] { reduce_shards(rank.data, rank, shard_span(), times); });
  if (output_layer && forward)
    timed(times.compute_s,
          [&] { fabric.device().compute(work_.logit_forward_flops * compute_scale_); });
}

}  // namespace scaleout::core
