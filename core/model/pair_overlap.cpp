#include "core/model/pair_overlap.hpp"

#include "core/model/overlap_slowdown.hpp"

namespace scaleout::core {

bool overlaps_pair(const ModelParallelWork& w, const PipeOp& first) {
  return first.sends_with_next && first.takes_with_next && w.dispatch_bytes > 0;
}

namespace {

class PieceList {
 public:
  void compute(double flops) {
    if (flops <= 0) return;
    if (!pieces_.empty() && !pieces_.back().exchange)
      pieces_.back().flops += flops;
    else
      pieces_.push_back({false, flops});
  }
  // A pass's all-to-alls alternate: to the experts, then back.
  void exchange() { pieces_.push_back({true, 0, exchanges_++ % 2 == 0}); }
  // A MoE layer's forward: attention, dispatch, MLP, combine.
  void moe_forward(double flops, double mlp_share) {
    compute(flops * (1 - mlp_share));
    exchange();
    compute(flops * mlp_share);
    exchange();
  }
  // Its backward: the combine's gradient, the MLP's, the dispatch's, the attention's.
  void moe_backward(double flops, double mlp_share) {
    exchange();
    compute(flops * mlp_share);
    exchange();
    compute(flops * (1 - mlp_share));
  }
  std::vector<PassPiece> take() && { return std::move(pieces_); }

 private:
  std::vector<PassPiece> pieces_;
  int exchanges_ = 0;
};

}  // namespace

std::vector<PassPiece> pass_pieces(const ModelParallelWork& w, int layers, int moe, bool forward,
                                   bool weight_apart, double logit_flops) {
  PieceList out;
  // MoE layers spread evenly: layer j is one when the count of them up to it grows there.
  auto is_moe = [&](int j) { return (j + 1) * moe / layers > j * moe / layers; };
  double share = w.moe_mlp_share;
  if (forward) {
    for (int j = 0; j < layers; ++j)
      is_moe(j) ? out.moe_forward(w.layer_forward_flops, share)
                : out.compute(w.layer_forward_flops);
    out.compute(logit_flops);
    return std::move(out).take();
  }
  bool recomputed = w.alltoalls_backward > 2;  // full recomputation's forward again, in backward
  double again = recomputed ? w.layer_forward_flops : 0;
  double backward = w.layer_backward_flops - again - (weight_apart ? w.layer_weight_flops : 0);
  out.compute(logit_flops);
  for (int j = layers - 1; j >= 0; --j) {
    if (!is_moe(j)) {
      out.compute(again + backward);
      continue;
    }
    if (recomputed) out.moe_forward(again, share);
    out.moe_backward(backward, share);
  }
  return std::move(out).take();
}

std::vector<PairSlot> pair_slots(const std::vector<PassPiece>& forward,
                                 const std::vector<PassPiece>& backward) {
  const std::vector<PassPiece>* passes[2] = {&forward, &backward};
  std::size_t next[2] = {0, 0};
  auto left = [&](int p) { return next[p] < passes[p]->size(); };
  auto piece = [&](int p) { return (*passes[p])[next[p]]; };
  std::vector<PairSlot> slots;
  while (left(0) || left(1)) {
    PairSlot slot;
    int compute = -1;
    for (int p : {0, 1})
      if (left(p) && !piece(p).exchange && left(1 - p) && piece(1 - p).exchange) compute = p;
    if (compute >= 0) {  // one pass's compute beside the other's all-to-all
      slot = {compute, piece(compute).flops, 1 - compute, piece(1 - compute).to_experts};
      ++next[0], ++next[1];
    } else {  // the forward's next piece alone, else the backward's
      int p = left(0) ? 0 : 1;
      if (piece(p).exchange) {
        slot.exchange_pass = p;
        slot.to_experts = piece(p).to_experts;
      } else {
        slot = {p, piece(p).flops, -1};
      }
      ++next[p];
    }
    slots.push_back(slot);
  }
  return slots;
}

double pair_seconds(const std::vector<PairSlot>& slots, double peak, AllToAllSeconds alltoall,
                    double slowdown) {
  double total = 0;
  for (const PairSlot& s : slots) {
    double compute = s.compute_pass >= 0 ? s.flops / peak : 0;
    double exchange = s.exchange_pass < 0 ? 0 : s.to_experts ? alltoall.to_experts : alltoall.back;
    total +=
        exchange > 0 && compute > 0 ? span_beside(compute, exchange, slowdown) : compute + exchange;
  }
  return total;
}

}  // namespace scaleout::core
