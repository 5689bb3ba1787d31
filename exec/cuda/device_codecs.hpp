// The compressors on a GPU: core::CodecBackend's steps on device memory, for the NCCL fabric's
// compressed exchanges. Each bucket's state (error feedback, random-k's step, PowerSGD's M, Q and
// P^) lives on the device.
//
// Top-k, random-k, int8 and onebit compute the host codecs' bits (core/codecs/codec_steps.hpp):
// top-k samples the magnitudes on the device, takes the threshold on the host, compacts the
// candidates in index order on the device and selects the k among them on the host (a few times k
// values cross PCIe; all of the bucket when the sample missed), then gathers the block on the
// device; random-k draws its indices on the host; int8 and onebit fold each chunk's scale in one
// block's lane order and pack the codes a word per thread. PowerSGD multiplies with cuBLAS (fp32,
// no TF32) and orthonormalizes P with cuSOLVER's QR (geqrf, orgqr; each column's sign set so that
// R's diagonal is positive, as Gram-Schmidt gives it; a column in the span of those before it zero,
// as the host codec makes it): its sums run in other orders than the host's, so it agrees with the
// host codec to rounding, not bit for bit.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <map>
#include <memory>
#include <utility>

#include "core/codecs/codec_backend.hpp"
#include "exec/calibrate.hpp"

namespace scaleout::exec {

// Device memory for floats that grows on demand (its contents are lost when it grows).
class DeviceFloats {
 public:
  DeviceFloats() = default;
  ~DeviceFloats();
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  float* ensure(std::int64_t count);
  float* get() const { return data_; }
  bool empty() const { return capacity_ == 0; }

 private:
  float* data_ = nullptr;
  std::int64_t capacity_ = 0;
};

class DeviceCodecs : public core::CodecBackend {
 public:
  explicit DeviceCodecs(cudaStream_t stream);
  ~DeviceCodecs() override;
  DeviceCodecs(const DeviceCodecs&) = delete;
  DeviceCodecs& operator=(const DeviceCodecs&) = delete;

  void encode(const core::BucketCodec& codec, int rank, std::uint64_t bucket, const float* grad,
              float* scratch) override;
  void owner_reduce(const core::BucketCodec& codec, int rank, std::uint64_t bucket,
                    float* scratch) override;
  void decode(const core::BucketCodec& codec, const float* scratch, float* grad) override;

  void encode_p(const core::LowRankCodec& codec, int rank, std::uint64_t bucket, const float* grad,
                float* scratch) override;
  void owner_sum(const core::LowRankCodec& codec, int rank, std::int64_t slot,
                 float* scratch) override;
  void encode_q(const core::LowRankCodec& codec, int rank, std::uint64_t bucket,
                float* scratch) override;
  void decode_low_rank(const core::LowRankCodec& codec, int rank, std::uint64_t bucket,
                       const float* scratch, float* grad) override;

 private:
  struct State {
    DeviceFloats residual, owner_residual;
    std::uint64_t steps = 0;
    DeviceFloats m, q, p_hat;  // PowerSGD
    bool has_m = false;
  };
  State& state(int rank, std::uint64_t bucket) { return states_[{rank, bucket}]; }
  std::vector<std::uint32_t> select_top_k(const float* x, std::int64_t count, std::int64_t k);
  void encode_sparse(const core::BucketCodec& codec, int rank, std::uint64_t bucket, const float* x,
                     float* scratch, State& st);
  void orthonormalize(float* p_hat, std::int64_t rows, int r);

  cudaStream_t stream_;
  cublasHandle_t blas_ = nullptr;
  cusolverDnHandle_t solver_ = nullptr;
  DeviceFloats x_, work_, small_;  // the encoded bucket (+ error feedback); temporaries
  std::map<std::pair<int, std::uint64_t>, State> states_;
};

// The device codecs' rates on this GPU (elements per second: top-k's encoding, the slower of
// int8's and onebit's, a whole PowerSGD step at rank 4), for calibrate --backend cuda.
CodecMeasure measure_device_codec_rates(cudaStream_t stream);

}  // namespace scaleout::exec
