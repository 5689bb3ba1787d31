// Context parallelism inside the model-parallel training program, as Megatron-Core runs it through
// Transformer Engine (--cp-comm-type): each member of a context group holds 1/context of every
// sequence, and a layer's attention needs every member's keys and values.
// - p2p (ring attention): the blocks travel round the group's ring, one step at a time; each step
//   the member computes its queries against the block it holds while it passes that block on and
//   takes the next. Backward passes each block with its gradient (twice the bytes).
// - all_gather (Llama 3's): the blocks are all-gathered before the attention computes; backward
//   gathers them again and reduce-scatters their gradient.
// A recomputed attention (full or selective recomputation) exchanges as forward first. The closed
// form times the same steps (analytic/analytic_model_parallel.cpp).
#include "core/programs/strategies/model_parallel_rank.hpp"
#include "core/programs/strategies/model_parallel_training.hpp"
#include "core/programs/strategies/ring_phases.hpp"

namespace scaleout::core {

namespace {

// Member `owner`'s block of the exchange labelled `label`.
std::uint64_t context_tag(std::uint64_t label, int owner) {
  return (std::uint64_t{1} << 42) + label * 8191 + static_cast<std::uint64_t>(owner);
}

}  // namespace

// The context region: two block slots a member, after the experts' gradient shard.
Span ModelParallelTraining::context_slot(int owner, int parts) const {
  std::int64_t base =
      send_slot(2 * ops_per_stage_).begin + token_elements() + expert_gradient_elements_;
  return {base + 2LL * owner * context_block_elements_, parts * context_block_elements_};
}

// Checked: after the n - 1 steps every member's block has arrived, from its owner.
void ModelParallelTraining::pass_context_blocks(const Rank& rank, int parts, double flops,
                                                std::uint64_t label,
                                                ModelParallelStepTimes& times) const {
  Fabric& group = rank.context;
  Fabric& fabric = rank.fabric;
  int n = group.size(), me = group.rank();
  int left = (me + n - 1) % n, right = (me + 1) % n;
  if (rank.checks) rank.checks->label(context_slot(me, parts), context_tag(label, me));
  for (int k = 0; k < n; ++k) {
    int held = (me - k + n) % n, next = (held + n - 1) % n;
    std::vector<Fabric::Handle> moving;
    if (k < n - 1) {  // the last block held goes no further
      moving.push_back(group.post_recv(left, context_slot(next, parts), Combine::kReplace));
      moving.push_back(group.post_send(right, context_slot(held, parts)));
    }
    double start = fabric.now();
    Device::ComputeTicket ticket = fabric.device().compute_async(flops / n);
    group.wait_all(moving);
    double slowed = fabric.device().communicated_beside(start);
    double done = fabric.device().wait_compute(ticket);
    times.compute_s += done - start - slowed;
    // What the block's compute did not hide, and what passing the block slowed it by.
    times.context_s += slowed + std::max(0.0, fabric.now() - done);
  }
  if (!rank.checks) return;
  for (int j = 0; j < n; ++j)
    times.wrong += rank.checks->mislabelled(context_slot(j, parts), context_tag(label, j));
}

void ModelParallelTraining::run_context_attention(const Rank& rank, const LayerWalk& walk,
                                                  std::uint64_t layer,
                                                  ModelParallelStepTimes& times) const {
  Fabric& fabric = rank.fabric;
  // Labels name the group too: blocks from another context group's members would not match.
  std::uint64_t label = layer * 1000003 + static_cast<std::uint64_t>(rank.context_first);
  double forward = work_.layer_attention_forward_flops * compute_scale_;
  double recomputed = !walk.forward && work_.context_recomputed ? forward : 0;
  double own = walk.attention_flops - recomputed;  // this op's own attention
  auto compute = [&](double flops) {
    double start = fabric.now();
    fabric.device().compute(flops);
    times.compute_s += fabric.now() - start;
  };
  if (work_.context_ring) {
    if (recomputed > 0) pass_context_blocks(rank, 1, recomputed, label * 2, times);
    pass_context_blocks(rank, walk.forward ? 1 : 2, own, label * 2 + 1, times);
    return;
  }
  int n = rank.context.size();
  Span blocks{context_slot(0, 1).begin, n * context_block_elements_};  // a block a member
  auto exchange = [&](auto&& run) {
    double start = fabric.now();
    run();
    times.context_s += fabric.now() - start;
  };
  if (recomputed > 0) {
    exchange([&] { gather_shards(rank.context, rank, blocks, label * 3, times); });
    compute(recomputed);
  }
  exchange([&] { gather_shards(rank.context, rank, blocks, label * 3 + 1, times); });
  compute(own);
  if (!walk.forward) exchange([&] { reduce_shards(rank.context, rank, blocks, times); });
}

}  // namespace scaleout::core
