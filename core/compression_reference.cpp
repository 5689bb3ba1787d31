#include "core/compression_reference.hpp"

#include <algorithm>

namespace scaleout::core {

CompressionReference::CompressionReference(const Plan& plan, const StepModel& model,
                                           const CheckValues& values)
    : compression_(plan.training.compression),
      workers_(plan.training.workers),
      values_(values),
      expected_(model.elements) {
  for (const auto& b : model.buckets) buckets_.push_back(b.span);
}

const std::vector<float>& CompressionReference::next_step() {
  for (Span b : buckets_) bucket_step(b);
  return expected_;
}

void CompressionReference::bucket_step(Span bucket) {
  BucketCodec codec(compression_, workers_, bucket.count);
  auto id = static_cast<std::uint64_t>(bucket.begin);
  std::int64_t words = codec.scratch_words();
  // Each worker's scratch after its own encoding.
  std::vector<std::vector<float>> scratch(workers_, std::vector<float>(words, 0.0f));
  std::vector<float> grad(bucket.count);
  for (int r = 0; r < workers_; ++r) {
    for (std::int64_t j = 0; j < bucket.count; ++j) grad[j] = values_.value(r, bucket.begin + j);
    codec.encode(r, id, grad.data(), scratch[r].data(), states_[{r, id}]);
  }
  // What the all-gather leaves on every worker: each worker's segment from its owner.
  std::vector<float> gathered(words, 0.0f);
  Span area = codec.gather_area();
  std::int64_t segment = area.count / workers_;
  for (int owner = 0; owner < workers_; ++owner) {
    int s = codec.segment_of(owner);
    if (!codec.sparse()) {
      for (int sender = 0; sender < workers_; ++sender) {
        if (sender == owner) continue;
        Span from = codec.send_slot(s), to = codec.recv_slot(sender);
        std::copy_n(scratch[sender].begin() + from.begin, from.count,
                    scratch[owner].begin() + to.begin);
      }
      codec.owner_reduce(owner, scratch[owner].data(), states_[{owner, id}]);
    }
    std::int64_t at = area.begin + s * segment;
    std::copy_n(scratch[owner].begin() + at, segment, gathered.begin() + at);
  }
  codec.decode(gathered.data(), expected_.data() + bucket.begin);
}

}  // namespace scaleout::core
