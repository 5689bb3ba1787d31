#include "core/codecs/codec_backend.hpp"

#include <map>
#include <utility>

namespace scaleout::core {

namespace {

class HostCodecs : public CodecBackend {
 public:
  void encode(const BucketCodec& codec, int rank, std::uint64_t bucket, const float* grad,
              float* scratch) override {
    codec.encode(rank, bucket, grad, scratch, states_[{rank, bucket}]);
  }
  void owner_reduce(const BucketCodec& codec, int rank, std::uint64_t bucket,
                    float* scratch) override {
    codec.owner_reduce(rank, scratch, states_[{rank, bucket}]);
  }
  void decode(const BucketCodec& codec, const float* scratch, float* grad) override {
    codec.decode(scratch, grad);
  }

  void encode_p(const LowRankCodec& codec, int rank, std::uint64_t bucket, const float* grad,
                float* scratch) override {
    codec.encode_p(bucket, grad, scratch, low_rank_[{rank, bucket}]);
  }
  void owner_sum(const LowRankCodec& codec, int rank, std::int64_t slot, float* scratch) override {
    codec.owner_sum(rank, slot, scratch);
  }
  void encode_q(const LowRankCodec& codec, int rank, std::uint64_t bucket,
                float* scratch) override {
    codec.encode_q(scratch, low_rank_[{rank, bucket}]);
  }
  void decode_low_rank(const LowRankCodec& codec, int rank, std::uint64_t bucket,
                       const float* scratch, float* grad) override {
    codec.decode(scratch, grad, low_rank_[{rank, bucket}]);
  }

 private:
  std::map<std::pair<int, std::uint64_t>, CodecState> states_;
  std::map<std::pair<int, std::uint64_t>, LowRankState> low_rank_;
};

}  // namespace

std::unique_ptr<CodecBackend> make_host_codecs() { return std::make_unique<HostCodecs>(); }

}  // namespace scaleout::core
