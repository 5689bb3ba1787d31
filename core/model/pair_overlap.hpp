// DualPipe's overlap of a forward and a backward (DeepSeek-V3 technical report, section 3.2.1 and
// its figure 4; deepseek-ai/DualPipe's _forward_backward_chunk hands the pair to the model, which
// overlaps them): a MoE layer's forward runs its attention, the tokens' dispatch (an all-to-all),
// its MLP and their combine (another); its backward the same in reverse. A pair runs one pass's
// compute beside the other pass's all-to-all, so each hides the other's exchanges. Both engines
// run the same slots: the closed form times them (pair_seconds), the training program computes
// each slot's FLOPs on the device stream while it runs the slot's all-to-all.
#pragma once

#include <vector>

#include "core/model/model_parallel_work.hpp"
#include "core/parallel/pipeline_schedule.hpp"

namespace scaleout::core {

// One piece of a pass, in order: compute (effective FLOPs) or one all-to-all.
struct PassPiece {
  bool exchange = false;
  double flops = 0;
  bool to_experts = false;  // an all-to-all's direction: to the experts (even ones), or back
};

// Whether the pair that `first` opens runs overlapped: DualPipe's F&B pairs whose inputs are taken
// together (dualpipev.py runs the last stage's first pair one pass after the other), in a plan
// whose MoE layers exchange tokens (a pair of chunks without MoE layers runs its compute alone).
bool overlaps_pair(const ModelParallelWork& w, const PipeOp& first);

// The pieces of a forward (or backward) through `layers` layers, `moe` of them MoE layers spread
// evenly among them; `logit_flops` the output layer's (forward: its forward,
// backward: its backward; 0 where the chunk has none), after the layers (forward) or before them
// (backward). A backward with full recomputation runs each layer's forward again, with its two
// all-to-alls, before that layer's backward. `weight_apart`: the weights' gradients run as an op
// of their own. Adjacent compute pieces are one.
std::vector<PassPiece> pass_pieces(const ModelParallelWork& w, int layers, int moe, bool forward,
                                   bool weight_apart, double logit_flops);

// One step of a pair: a compute piece of one pass (0: forward, 1: backward; -1: none) beside one
// all-to-all of the other (-1: none).
struct PairSlot {
  int compute_pass = -1;
  double flops = 0;
  int exchange_pass = -1;
  bool to_experts = false;  // the all-to-all's direction
};

// The pair's steps: while one pass's next piece is compute and the other's an all-to-all, the two
// run together; where both are compute (or both all-to-alls), or one pass is through, the
// forward's (else the backward's) next piece runs alone. Every piece runs once, in its pass's
// order.
std::vector<PairSlot> pair_slots(const std::vector<PassPiece>& forward,
                                 const std::vector<PassPiece>& backward);

// One all-to-all's seconds each way.
struct AllToAllSeconds {
  double to_experts = 0;
  double back = 0;
};

// The closed form's seconds of the slots: each slot's compute at `peak` FLOP/s beside its
// all-to-all, slowed by `slowdown` (core::span_beside).
double pair_seconds(const std::vector<PairSlot>& slots, double peak, AllToAllSeconds alltoall,
                    double slowdown);

}  // namespace scaleout::core
