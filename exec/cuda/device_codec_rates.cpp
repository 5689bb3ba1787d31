// calibrate --backend cuda: the rates the GPU codecs run at (the topology's device.compress), on
// a 64 MiB bucket of one worker, each the median of 3 runs after a warm-up, host waits included
// (top-k's threshold and selection run on the host).
#include <random>
#include <vector>

#include "core/codecs/compression.hpp"
#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/device_codecs.hpp"
#include "exec/cuda/stream_timer.hpp"

namespace scaleout::exec {

namespace {

constexpr std::int64_t kCount = 16 << 20;

core::Compression kind_of(core::CompressionKind kind) {
  core::Compression c;
  c.kind = kind;
  c.density = 0.01;
  c.rank = 4;
  return c;
}

// Elements a second of one worker's encoding of the bucket.
double encode_rate(DeviceCodecs& codecs, cudaStream_t stream, core::CompressionKind kind,
                   const float* grad, DeviceFloats& scratch) {
  core::BucketCodec codec(kind_of(kind), 1, kCount);
  float* words = scratch.ensure(codec.scratch_words());
  double s = median_seconds(stream, 3, [&] { codecs.encode(codec, 0, 0, grad, words); });
  return static_cast<double>(kCount) / s;
}

// Elements a second of a whole PowerSGD step at rank 4.
double low_rank_rate(DeviceCodecs& codecs, cudaStream_t stream, const float* grad,
                     DeviceFloats& scratch, DeviceFloats& out) {
  core::LowRankCodec codec(kind_of(core::CompressionKind::kPowersgd), 1, kCount);
  float* words = scratch.ensure(codec.scratch_words());
  float* result = out.ensure(kCount);
  double s = median_seconds(stream, 3, [&] {
    codecs.encode_p(codec, 0, 1, grad, words);
    codecs.owner_sum(codec, 0, codec.p_slot(), words);
    codecs.encode_q(codec, 0, 1, words);
    codecs.owner_sum(codec, 0, codec.q_slot(), words);
    codecs.decode_low_rank(codec, 0, 1, words, result);
  });
  return static_cast<double>(kCount) / s;
}

}  // namespace

CodecMeasure measure_device_codec_rates(cudaStream_t stream) {
  std::vector<float> host(kCount);
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float& v : host) v = normal(rng);
  DeviceFloats grad, scratch, out;
  SCALEOUT_CUDA_CHECK(
      cudaMemcpy(grad.ensure(kCount), host.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  DeviceCodecs codecs(stream);
  using K = core::CompressionKind;
  CodecMeasure m;
  m.topk = encode_rate(codecs, stream, K::kTopk, grad.get(), scratch);
  m.quantize = std::min(encode_rate(codecs, stream, K::kInt8, grad.get(), scratch),
                        encode_rate(codecs, stream, K::kOnebit, grad.get(), scratch));
  m.lowrank = low_rank_rate(codecs, stream, grad.get(), scratch, out);
  return m;
}

}  // namespace scaleout::exec
