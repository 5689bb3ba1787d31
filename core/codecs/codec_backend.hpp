// Where a compressed exchange's local work runs. The compressed ring program
// (core/programs/strategies/compressed_ring.cpp) calls a backend between its transfers with the
// rank's words (the gradient's elements first, then the program's scratch); the backend keeps each
// bucket's state (error feedback, random-k's step, PowerSGD's M and Q) where those words live.
// The host codecs serve every fabric whose words are in host memory (Gloo, and the reference
// that checks a run); a GPU fabric gives its own (exec/cuda/device_codecs.hpp), which run the
// same steps on the device.
#pragma once

#include <cstdint>
#include <memory>

#include "core/codecs/compression_codec.hpp"
#include "core/codecs/powersgd_codec.hpp"

namespace scaleout::core {

class CodecBackend {
 public:
  virtual ~CodecBackend() = default;

  // BucketCodec's steps (top-k, random-k, int8, onebit) for worker `rank`'s bucket `bucket`.
  virtual void encode(const BucketCodec& codec, int rank, std::uint64_t bucket, const float* grad,
                      float* scratch) = 0;
  virtual void owner_reduce(const BucketCodec& codec, int rank, std::uint64_t bucket,
                            float* scratch) = 0;
  virtual void decode(const BucketCodec& codec, const float* scratch, float* grad) = 0;

  // LowRankCodec's steps (PowerSGD).
  virtual void encode_p(const LowRankCodec& codec, int rank, std::uint64_t bucket,
                        const float* grad, float* scratch) = 0;
  virtual void owner_sum(const LowRankCodec& codec, int rank, std::int64_t slot,
                         float* scratch) = 0;
  virtual void encode_q(const LowRankCodec& codec, int rank, std::uint64_t bucket,
                        float* scratch) = 0;
  virtual void decode_low_rank(const LowRankCodec& codec, int rank, std::uint64_t bucket,
                               const float* scratch, float* grad) = 0;
};

// The codecs on host memory, every bucket's state kept per (rank, bucket).
std::unique_ptr<CodecBackend> make_host_codecs();

}  // namespace scaleout::core
