// Megatron-Core's overlaps inside the model-parallel training program. --overlap-grad-reduce
// (core/programs/gradient_buckets.hpp): an op that makes gradient buckets walks its layers one at a
// time, each layer's compute on the compute stream beside the oldest waiting bucket's exchange, its
// tensor all-reduces after it. --tp-comm-overlap: every op walks, each layer's tensor collectives
// cut into `tensor` chunks, the first run before the compute and the rest beside it (then any
// bucket). With context parallelism each layer's attention runs first with its key-value
// exchanges (core/programs/strategies/model_parallel_context.cpp). DualPipe's F&B pairs run each
// pass's compute beside the other's all-to-alls (core/model/pair_overlap.hpp). The closed form
// times the same walks (analytic/gradient_overlap.hpp and analytic_model_parallel.cpp).
#include <algorithm>
#include <cmath>

#include "core/model/pair_overlap.hpp"
#include "core/parallel/model_split.hpp"
#include "core/programs/strategies/model_parallel_rank.hpp"
#include "core/programs/strategies/model_parallel_training.hpp"

namespace scaleout::core {

void ModelParallelTraining::run_walking_op(const Rank& rank, const PipeOp& op, std::size_t index,
                                           BucketQueue* queue,
                                           ModelParallelStepTimes& times) const {
  Fabric& fabric = rank.fabric;
  const LayerWalk walk = layer_walk(rank, op);
  const auto [forward, output_layer, layers, flops, allreduces, attention] = walk;
  auto compute = [&](double f) {
    double start = fabric.now();
    fabric.device().compute(f);
    times.compute_s += fabric.now() - start;
  };
  Span activations{gradient_elements_, activation_elements_};
  Span head{activations.begin, tensor_head_elements_};
  Span rest{head.begin + head.count, activations.count - head.count};
  if (output_layer && !forward) compute(2 * work_.logit_forward_flops * compute_scale_);
  GradientBucket needed;  // overlap_param_gather: the parameters the first layer needs
  if (queue && queue->first_gather(op, needed)) {
    double start = fabric.now();
    exchange_bucket(rank, needed, times);
    times.data_s += fabric.now() - start;
  }
  // Labels unique to the step, the op and the layer (the context exchanges' checks).
  std::uint64_t first = layer_labels(times.step, index, layers);
  for (int layer = 0; layer < layers; ++layer) {
    if (attention > 0) run_context_attention(rank, walk, first + layer, times);
    double start = fabric.now();
    if (work_.tp_comm_overlap) {  // the first chunk's collectives before the products start
      times.wrong += run_tensor_allreduces(rank, allreduces, head);
      times.tensor_s += fabric.now() - start;
      start = fabric.now();
    }
    Device::ComputeTicket ticket = fabric.device().compute_async(flops);
    if (work_.tp_comm_overlap) times.wrong += run_tensor_allreduces(rank, allreduces, rest);
    double tensor_end = fabric.now();
    GradientBucket bucket;
    bool exchanged = queue && queue->take(op, bucket);
    if (exchanged) exchange_bucket(rank, bucket, times);
    double slowed = fabric.device().communicated_beside(start);
    double done = fabric.device().wait_compute(ticket);
    times.compute_s += done - start - slowed;
    (exchanged ? times.data_s : times.tensor_s) += slowed;  // the slowdown's cost
    // What the compute did not hide: the tensor chunks' first, then the bucket's.
    times.tensor_s += std::max(0.0, tensor_end - done);
    times.data_s += std::max(0.0, fabric.now() - std::max(tensor_end, done));
    if (!work_.tp_comm_overlap) run_tensor_allreduces(rank, allreduces, times);
    if (queue) queue->layer_done(op, layer);
  }
  if (output_layer && forward) compute(work_.logit_forward_flops * compute_scale_);
  exchange_tokens(rank, op, times);
}

void ModelParallelTraining::run_overlapped_pair(const Rank& rank, const PipeOp& forward,
                                                const PipeOp& backward,
                                                ModelParallelStepTimes& times) const {
  Fabric& fabric = rank.fabric;
  const ModelSplit& split = state_.split();
  int stage = rank.at.stage;
  int layers[2] = {chunk_layers(split, stage, forward.chunk),
                   chunk_layers(split, stage, backward.chunk)};
  int moe[2] = {chunk_moe_layers(split, stage, forward.chunk),
                chunk_moe_layers(split, stage, backward.chunk)};
  auto logits = [&](const PipeOp& op, double times_forward) {
    return split.route().holds_output_layer(stage, op.chunk)
               ? times_forward * work_.logit_forward_flops
               : 0.0;
  };
  std::vector<PairSlot> slots = pair_slots(
      pass_pieces(work_, layers[0], moe[0], true, false, logits(forward, 1)),
      pass_pieces(work_, layers[1], moe[1], false, backward.weight_apart, logits(backward, 2)));
  const PipeOp* ops[2] = {&forward, &backward};
  int exchanged[2] = {0, 0};       // each pass's all-to-alls so far
  auto exchange = [&](int pass) {  // the slot's all-to-all, drawn in the communication lane
    if (pass < 0) return;
    double start = fabric.now();
    times.wrong += token_alltoall(rank, pass, exchanged[pass]++);
    rank.observer.phase(fabric.rank(), "all-to-all", "comm", start, fabric.now());
  };
  for (const PairSlot& slot : slots) {
    double start = fabric.now();
    if (slot.compute_pass < 0) {
      exchange(slot.exchange_pass);
      times.expert_s += fabric.now() - start;
      continue;
    }
    Device::ComputeTicket ticket = fabric.device().compute_async(slot.flops * compute_scale_);
    exchange(slot.exchange_pass);
    double exchanged_until = fabric.now();
    double slowed = fabric.device().communicated_beside(start);
    double done = fabric.device().wait_compute(ticket);
    times.compute_s += done - start - slowed;
    times.expert_s += slowed + std::max(0.0, exchanged_until - done);  // what compute did not hide
    const PipeOp& op = *ops[slot.compute_pass];
    rank.observer.phase(fabric.rank(), op_name(op, chunks_), pass_name(op.kind), start, done);
  }
  run_tensor_allreduces(
      rank,
      layers[0] * work_.tensor_allreduces_forward + layers[1] * work_.tensor_allreduces_backward,
      times);
}

// One bucket over the data group: all-reduced by the plan's strategy, or reduce-scattered by a ring
// with ZeRO-1 (Megatron-Core's distributed optimizer), or a bucket of updated parameters
// all-gathered by a ring. Checked: the sums, the kept segment's, or every segment's owner.
void ModelParallelTraining::exchange_bucket(const Rank& rank, const GradientBucket& bucket,
                                            ModelParallelStepTimes& times) const {
  Fabric& fabric = rank.fabric;
  double bpe = plan_.training.gradient_bytes_per_element;
  auto at = [&](double bytes) {
    return std::min<std::int64_t>(gradient_elements_, std::llround(bytes / bpe));
  };
  std::int64_t begin = std::min(at(bucket.offset), gradient_elements_ - 1);
  Span span{begin, std::max<std::int64_t>(1, at(bucket.offset + bucket.bytes) - begin)};
  double start = fabric.now();
  if (bucket.parameters) {  // labelled by step, chunk and bucket: an older gather's do not match
    std::uint64_t label = (static_cast<std::uint64_t>(times.step) << 24) +
                          (static_cast<std::uint64_t>(bucket.chunk) << 16) +
                          static_cast<std::uint64_t>(bucket.after_layer);
    gather_shards(rank.data, rank, span, ~std::uint64_t{0} - (std::uint64_t{1} << 40) - label,
                  times);
  } else if (plan_.parallelism->zero == 1) {
    reduce_shards(rank.data, rank, span, times);
  } else {
    if (rank.checks) fabric.device().produce_gradient(span);
    rank.data_program->run(rank.data, span);
    if (rank.checks) times.wrong += rank.checks->differs_from_sum(span, rank.data_members);
  }
  rank.observer.phase(fabric.rank(), bucket.parameters ? "parameter bucket" : "gradient bucket",
                      "comm", start, fabric.now());
}

}  // namespace scaleout::core
