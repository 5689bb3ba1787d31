#include "core/programs/gradient_buckets.hpp"

#include <algorithm>

namespace scaleout::core {

double megatron_bucket_parameters(int data) { return std::max(40e6, 1e6 * data); }

std::vector<GradientBucket> chunk_buckets(double chunk_bytes, int layers, double bucket_bytes,
                                          int chunk) {
  std::vector<GradientBucket> out;
  if (layers < 1 || chunk_bytes <= 0) return out;
  double per_layer = chunk_bytes / layers, start = 0;
  for (int layer = 0; layer < layers; ++layer) {
    double end = per_layer * (layer + 1);
    bool last = layer == layers - 1;
    if (!last && end - start < bucket_bytes) continue;
    out.push_back({chunk * chunk_bytes + start, (last ? chunk_bytes : end) - start, layer, chunk});
    start = end;
  }
  return out;
}

BucketQueue::BucketQueue(const ModelParallelWork& work, const ModelSplit& split, int stage)
    : made_(split.chunks, 0),
      gathered_(split.chunks, 0),
      gather_parameters_(work.overlap_param_gather),
      microbatches_(split.microbatches) {
  int stage_total = stage_layers(split, stage);
  bool alike = chunks_alike(split, stage);
  for (int c = 0; c < split.chunks; ++c) {
    int layers = chunk_layers(split, stage, c);
    double chunk_bytes =
        alike ? work.gradient_bytes / split.chunks : work.gradient_bytes * layers / stage_total;
    bool bucketed = stage == 0 && c == 0;
    chunks_.push_back(
        chunk_buckets(chunk_bytes, layers, bucketed ? work.bucket_bytes : chunk_bytes, c));
  }
}

bool BucketQueue::makes_buckets(const PipeOp& op) const {
  return op.kind == PipeOp::Kind::kBackward && op.microbatch == microbatches_ - 1;
}

bool BucketQueue::gathers(const PipeOp& op) const {
  return gather_parameters_ && op.kind == PipeOp::Kind::kForward && op.microbatch == 0;
}

bool BucketQueue::walks(const PipeOp& op) const { return makes_buckets(op) || gathers(op); }

// The parameters are needed in forward order: the chunk's buckets from the last made.
bool BucketQueue::first_gather(const PipeOp& op, GradientBucket& out) {
  return gathers(op) && gathered_[op.chunk] == 0 && take(op, out);
}

bool BucketQueue::take(const PipeOp& op, GradientBucket& out) {
  if (gathers(op)) {
    const std::vector<GradientBucket>& mine = chunks_[op.chunk];
    std::size_t& done = gathered_[op.chunk];
    if (done == mine.size()) return false;
    out = mine[mine.size() - 1 - done++];
    out.parameters = true;
    return true;
  }
  if (!makes_buckets(op)) return false;
  auto mine = std::find_if(waiting_.begin(), waiting_.end(),
                           [&](const GradientBucket& b) { return b.chunk == op.chunk; });
  if (mine == waiting_.end()) return false;
  out = *mine;
  waiting_.erase(mine);
  return true;
}

void BucketQueue::layer_done(const PipeOp& op, int layer) {
  if (!makes_buckets(op)) return;
  const std::vector<GradientBucket>& mine = chunks_[op.chunk];
  std::size_t& made = made_[op.chunk];
  for (; made < mine.size() && mine[made].after_layer <= layer; ++made)
    waiting_.push_back(mine[made]);
}

std::vector<GradientBucket> BucketQueue::rest() {
  std::vector<GradientBucket> out(waiting_.begin(), waiting_.end());
  waiting_.clear();
  return out;
}

}  // namespace scaleout::core
