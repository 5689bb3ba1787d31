#include "exec/cuda/device_codecs.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "core/codecs/codec_steps.hpp"
#include "core/codecs/compression.hpp"
#include "exec/cuda/codec_kernels.hpp"
#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/library_check.hpp"

namespace scaleout::exec {

namespace {

template <typename T>
std::vector<T> download(const void* device, std::int64_t count, cudaStream_t stream) {
  std::vector<T> host(static_cast<std::size_t>(count));
  if (count > 0) {
    SCALEOUT_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return host;
}

template <typename T>
void upload(const std::vector<T>& host, void* device, cudaStream_t stream) {
  if (host.empty()) return;
  SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(T),
                                      cudaMemcpyHostToDevice, stream));
  SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(stream));  // `host` may go before the copy runs
}

// Words as floats: device buffers of indices and counts share DeviceFloats' 4-byte words.
template <typename T>
T* as(float* p) {
  return reinterpret_cast<T*>(p);
}

}  // namespace

DeviceFloats::~DeviceFloats() { cudaFree(data_); }

float* DeviceFloats::ensure(std::int64_t count) {
  if (count <= capacity_) return data_;
  cudaFree(data_);
  data_ = nullptr;
  SCALEOUT_CUDA_CHECK(cudaMalloc(&data_, static_cast<std::size_t>(count) * sizeof(float)));
  capacity_ = count;
  return data_;
}

DeviceCodecs::DeviceCodecs(cudaStream_t stream) : stream_(stream) {
  check_blas(cublasCreate(&blas_), "cublasCreate");
  check_blas(cublasSetStream(blas_, stream_), "cublasSetStream");
  check_blas(cublasSetMathMode(blas_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
  check_solver(cusolverDnCreate(&solver_), "cusolverDnCreate");
  check_solver(cusolverDnSetStream(solver_, stream_), "cusolverDnSetStream");
}

DeviceCodecs::~DeviceCodecs() {
  cudaStreamSynchronize(stream_);  // nothing queued may outlive the buffers
  if (solver_) cusolverDnDestroy(solver_);
  if (blas_) cublasDestroy(blas_);
}

void DeviceCodecs::encode(const core::BucketCodec& codec, int rank, std::uint64_t bucket,
                          const float* grad, float* scratch) {
  const core::Compression& c = codec.compression();
  State& st = state(rank, bucket);
  std::int64_t count = codec.count();
  float* x = x_.ensure(count);
  const float* residual = nullptr;
  if (c.error_feedback) {
    if (st.residual.empty())
      SCALEOUT_CUDA_CHECK(
          cudaMemsetAsync(st.residual.ensure(count), 0, count * sizeof(float), stream_));
    residual = st.residual.get();
  }
  launch_sum_into(x, grad, residual, count, stream_);
  if (codec.sparse()) {
    encode_sparse(codec, rank, bucket, x, scratch, st);
  } else {
    int bits = c.quantize_bits();
    std::int64_t per_scale = core::elements_per_scale(c);
    // 1-bit Adam's all-reduce encodes each owner's part; an all-gather the whole bucket.
    int parts = codec.gathered() ? 1 : codec.workers();
    for (int p = 0; p < parts; ++p) {
      core::Span part = codec.gathered() ? core::Span{0, count} : codec.part(p);
      float* slot = scratch + (codec.gathered() ? codec.block_of(rank) : codec.send_slot(p).begin);
      launch_encode_part(x + part.begin, part.count, per_scale, bits, slot, stream_);
      if (c.error_feedback)
        launch_residual_of_part(x + part.begin, slot, part.count, per_scale, bits,
                                st.residual.get() + part.begin, stream_);
    }
  }
  ++st.steps;
}

void DeviceCodecs::encode_sparse(const core::BucketCodec& codec, int rank, std::uint64_t bucket,
                                 const float* x, float* scratch, State& st) {
  std::int64_t count = codec.count(), k = codec.k();
  std::vector<std::uint32_t> idx =
      codec.compression().kind == core::CompressionKind::kTopk
          ? select_top_k(x, count, k)
          : core::random_k_indices(codec.draw_rank(rank), st.steps, bucket, count, k);
  auto* chosen = as<std::uint32_t>(small_.ensure(k));
  upload(idx, chosen, stream_);
  launch_gather_block(x, chosen, k, scratch + codec.block_of(rank), stream_);
  if (codec.compression().error_feedback)
    launch_residual_without(x, chosen, k, st.residual.get(), count, stream_);
  SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before small_ is reused
}

// DGC's steps as core::top_k_indices takes them, the scans over the bucket on the device.
std::vector<std::uint32_t> DeviceCodecs::select_top_k(const float* x, std::int64_t count,
                                                      std::int64_t k) {
  core::TopkSample sample = core::topk_sample(count);
  std::int64_t tiles = (count + kCompactTile - 1) / kCompactTile;
  float* work = work_.ensure(std::max(sample.size, 2 * tiles));
  launch_sample_magnitudes(x, sample.first(), sample.stride, sample.size, work, stream_);
  std::vector<float> magnitudes = download<float>(work, sample.size, stream_);
  float threshold = core::sampled_threshold(magnitudes, k, count);
  auto* tile_counts = as<std::int64_t>(work);
  launch_count_candidates(x, count, threshold, tile_counts, stream_);
  std::vector<std::int64_t> offsets = download<std::int64_t>(tile_counts, tiles, stream_);
  std::int64_t total = 0;
  for (std::int64_t& n : offsets) {  // each tile's first position: an exclusive scan
    std::int64_t here = n;
    n = total;
    total += here;
  }
  std::vector<std::uint32_t> candidates;
  std::vector<float> values;
  if (total >= k) {
    upload(offsets, tile_counts, stream_);
    float* out = small_.ensure(2 * total);
    launch_write_candidates(x, count, threshold, tile_counts, as<std::uint32_t>(out), out + total,
                            stream_);
    candidates = download<std::uint32_t>(out, total, stream_);
    values = download<float>(out + total, total, stream_);
  } else {  // the sample missed: every element is a candidate
    candidates.resize(count);
    std::iota(candidates.begin(), candidates.end(), 0u);
    values = download<float>(x, count, stream_);
  }
  std::vector<std::uint32_t> chosen;
  chosen.reserve(k);
  for (std::int64_t p : core::largest_k(values, k)) chosen.push_back(candidates[p]);
  return chosen;
}

void DeviceCodecs::owner_reduce(const core::BucketCodec& codec, int rank, std::uint64_t bucket,
                                float* scratch) {
  const core::Compression& c = codec.compression();
  State& st = state(rank, bucket);
  int p = codec.segment_of(rank);
  std::int64_t m = codec.part(p).count, slot = codec.slot();
  SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(scratch + codec.recv_slot(rank).begin,
                                      scratch + codec.send_slot(p).begin, slot * sizeof(float),
                                      cudaMemcpyDeviceToDevice, stream_));
  if (c.error_feedback && st.owner_residual.empty())
    SCALEOUT_CUDA_CHECK(
        cudaMemsetAsync(st.owner_residual.ensure(m), 0, m * sizeof(float), stream_));
  int bits = c.quantize_bits();
  std::int64_t per_scale = core::elements_per_scale(c);
  float* sum = x_.ensure(m);
  launch_sum_parts(scratch + codec.recv_slot(0).begin, slot, codec.workers(), m, per_scale, bits,
                   c.error_feedback ? st.owner_residual.get() : nullptr, sum, stream_);
  float* result = scratch + codec.gather_area().begin + p * slot;
  launch_encode_part(sum, m, per_scale, bits, result, stream_);
  if (c.error_feedback)
    launch_residual_of_part(sum, result, m, per_scale, bits, st.owner_residual.get(), stream_);
}

void DeviceCodecs::decode(const core::BucketCodec& codec, const float* scratch, float* grad) {
  const core::Compression& c = codec.compression();
  if (codec.gathered() && c.majority_vote) {
    launch_vote_signs(scratch + codec.gather_area().begin, codec.slot(), codec.workers(),
                      codec.count(), core::elements_per_scale(c), grad, stream_);
    return;
  }
  if (codec.gathered()) {  // every worker's bucket added in segment order into zeros, as the host
    launch_sum_parts(scratch + codec.gather_area().begin, codec.slot(), codec.workers(),
                     codec.count(), core::elements_per_scale(c), c.quantize_bits(), nullptr, grad,
                     stream_);
    return;
  }
  if (!codec.sparse()) {
    int bits = c.quantize_bits();
    for (int p = 0; p < codec.workers(); ++p)
      launch_decode_part(scratch + codec.gather_area().begin + p * codec.slot(),
                         codec.part(p).count, core::elements_per_scale(c), bits,
                         grad + codec.part(p).begin, stream_);
    return;
  }
  SCALEOUT_CUDA_CHECK(cudaMemsetAsync(grad, 0, codec.count() * sizeof(float), stream_));
  for (int s = 0; s < codec.blocks(); ++s)  // in segment order, as every worker adds
    launch_scatter_add(scratch + s * 2 * codec.k(), codec.k(), grad, stream_);
}

}  // namespace scaleout::exec
