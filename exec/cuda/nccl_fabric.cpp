#include "exec/cuda/nccl_fabric.hpp"

#include <stdexcept>
#include <string>
#include <thread>

#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/device_codecs.hpp"
#include "exec/cuda/kernels.hpp"

namespace scaleout::exec {

namespace {

constexpr std::int64_t kScratchAlign = 64;  // elements: keeps every scratch range 16-byte aligned

}  // namespace

ncclDataType_t nccl_type(ElementType type) {
  switch (type) {
    case ElementType::kFp16:
      return ncclFloat16;
    case ElementType::kBf16:
      return ncclBfloat16;
    case ElementType::kFp32:
      break;
  }
  return ncclFloat32;
}

NcclFabric::NcclFabric(ncclComm_t& comm, ElementType type, std::int64_t elements,
                       const core::CheckValues& values, std::chrono::milliseconds timeout,
                       std::int64_t scratch_words)
    : comm_(comm),
      type_(type),
      elements_(elements),
      scratch_words_(scratch_words),
      values_(values),
      timeout_(timeout) {
  if (scratch_words_ > 0 && type_ != ElementType::kFp32)
    throw std::logic_error("a compressed exchange needs an fp32 gradient");
  SCALEOUT_NCCL_CHECK(ncclCommUserRank(comm_, &rank_));
  SCALEOUT_NCCL_CHECK(ncclCommCount(comm_, &size_));
  SCALEOUT_CUDA_CHECK(cudaMalloc(
      &data_,
      static_cast<std::size_t>(std::max<std::int64_t>(elements_, 1)) * element_bytes(type_) +
          static_cast<std::size_t>(scratch_words_) * sizeof(float)));
  SCALEOUT_CUDA_CHECK(cudaStreamCreateWithFlags(&comm_stream_, cudaStreamNonBlocking));
  SCALEOUT_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_stream_, cudaStreamNonBlocking));
  gemm_ = std::make_unique<GemmCompute>(compute_stream_);
  // The run's clock starts when the device passes this event (wait_compute's times are
  // measured from it) and the host clock is read right after, so the two agree to microseconds.
  SCALEOUT_CUDA_CHECK(cudaEventCreate(&start_event_));
  SCALEOUT_CUDA_CHECK(cudaEventRecord(start_event_, compute_stream_));
  SCALEOUT_CUDA_CHECK(cudaEventSynchronize(start_event_));
  start_ = std::chrono::steady_clock::now();
}

NcclFabric::~NcclFabric() {
  // Teardown errors cannot be reported from a destructor; the run already has its result.
  codecs_.reset();
  gemm_.reset();
  for (cudaEvent_t e : compute_done_) cudaEventDestroy(e);
  if (start_event_) cudaEventDestroy(start_event_);
  if (comm_stream_) cudaStreamDestroy(comm_stream_);
  if (compute_stream_) cudaStreamDestroy(compute_stream_);
  cudaFree(produced_);
  cudaFree(scratch_);
  cudaFree(data_);
}

void NcclFabric::ensure_scratch(std::int64_t elements) {
  if (elements <= scratch_elements_) return;
  // Work queued earlier may still read the old buffer: let it finish before freeing it.
  synchronize();
  cudaFree(scratch_);
  scratch_ = nullptr;
  SCALEOUT_CUDA_CHECK(
      cudaMalloc(&scratch_, static_cast<std::size_t>(elements) * element_bytes(type_)));
  scratch_elements_ = elements;
}

void NcclFabric::issue(const std::vector<exec::PointOp>& group) {
  std::int64_t needed = 0;
  std::vector<std::int64_t> offsets = exec::scratch_offsets(group, kScratchAlign, needed);
  ensure_scratch(needed);
  auto scratch_at = [&](std::int64_t offset) {
    return static_cast<std::byte*>(scratch_) + offset * element_bytes(type_);
  };
  ncclDataType_t dtype = nccl_type(type_);
  SCALEOUT_NCCL_CHECK(ncclGroupStart());
  for (std::size_t i = 0; i < group.size(); ++i) {
    const exec::PointOp& op = group[i];
    if (op.span.count == 0) continue;
    auto count = static_cast<std::size_t>(op.span.count);
    if (op.send) {
      SCALEOUT_NCCL_CHECK(ncclSend(at(op.span.begin), count, dtype, op.peer, comm_, comm_stream_));
    } else {
      void* target =
          offsets[i] >= 0 ? static_cast<void*>(scratch_at(offsets[i])) : at(op.span.begin);
      SCALEOUT_NCCL_CHECK(ncclRecv(target, count, dtype, op.peer, comm_, comm_stream_));
    }
    waiting_on_.insert(op.peer);
  }
  SCALEOUT_NCCL_CHECK(ncclGroupEnd());
  // The additions follow the group on the same stream: they see the received data, and the next
  // group (which may send what they produce) runs after them.
  for (std::size_t i = 0; i < group.size(); ++i)
    if (offsets[i] >= 0)
      launch_add(type_, at(group[i].span.begin), scratch_at(offsets[i]), group[i].span.count,
                 comm_stream_);
}

void NcclFabric::synchronize() {
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (true) {
    cudaError_t status = cudaStreamQuery(comm_stream_);
    if (status == cudaSuccess) break;
    if (status != cudaErrorNotReady) check_cuda(status, "cudaStreamQuery(communication stream)");
    ncclResult_t async = ncclSuccess;
    SCALEOUT_NCCL_CHECK(ncclCommGetAsyncError(comm_, &async));
    bool late = std::chrono::steady_clock::now() > deadline;
    if (async != ncclSuccess || late) {
      std::string peers;
      for (int p : waiting_on_) peers += (peers.empty() ? "" : ", ") + std::to_string(p);
      // Aborting unblocks the stream's pending NCCL kernels; the communicator is unusable after.
      ncclCommAbort(comm_);
      comm_ = nullptr;
      std::string what = peers.empty() ? "queued work" : "transfers with rank(s) " + peers;
      throw CudaError("rank " + std::to_string(rank_) + ": " + what +
                      (late ? " did not complete within " + std::to_string(timeout_.count()) + " ms"
                            : std::string(" failed: ") + ncclGetErrorString(async)));
    }
    std::this_thread::yield();
  }
  waiting_on_.clear();
}

void NcclFabric::produce_gradient(core::Span span) {
  if (filled_ahead_ || span.count <= 0) return;
  if (!produced_) {
    std::vector<float> host(static_cast<std::size_t>(elements_));
    for (std::int64_t i = 0; i < elements_; ++i)
      host[static_cast<std::size_t>(i)] = values_.value(rank_, i);
    SCALEOUT_CUDA_CHECK(cudaMalloc(&produced_, host.size() * element_bytes(type_)));
    upload_floats(type_, host, produced_, comm_stream_);
  }
  auto bytes = static_cast<std::size_t>(span.count) * element_bytes(type_);
  const std::byte* from =
      static_cast<const std::byte*>(produced_) + span.begin * element_bytes(type_);
  SCALEOUT_CUDA_CHECK(
      cudaMemcpyAsync(at(span.begin), from, bytes, cudaMemcpyDeviceToDevice, comm_stream_));
}

void NcclFabric::fill_gradient_ahead() {
  produce_gradient(core::Span{0, elements_});
  synchronize();
  filled_ahead_ = true;
}

void NcclFabric::compute(double flops) { wait_compute(compute_async(flops)); }

core::Device::ComputeTicket NcclFabric::compute_async(double flops) {
  gemm_->launch(flops);
  cudaEvent_t done = nullptr;
  SCALEOUT_CUDA_CHECK(cudaEventCreate(&done));
  SCALEOUT_CUDA_CHECK(cudaEventRecord(done, compute_stream_));
  compute_done_.push_back(done);
  return static_cast<ComputeTicket>(compute_done_.size() - 1);
}

double NcclFabric::wait_compute(ComputeTicket ticket) {
  cudaEvent_t done = compute_done_.at(static_cast<std::size_t>(ticket));
  SCALEOUT_CUDA_CHECK(cudaEventSynchronize(done));
  float ms = 0;
  SCALEOUT_CUDA_CHECK(cudaEventElapsedTime(&ms, start_event_, done));
  return ms / 1e3;
}

void NcclFabric::local_work(double, const WordsFn& apply) {
  if (type_ != ElementType::kFp32) throw std::logic_error("local work on words needs fp32");
  synchronize();
  apply(static_cast<float*>(data_));
}

core::CodecBackend* NcclFabric::device_codecs() {
  if (!codecs_) codecs_ = std::make_unique<DeviceCodecs>(comm_stream_);
  return codecs_.get();
}

void NcclFabric::idle(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

double NcclFabric::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::vector<float> download_floats(ElementType type, const void* data, std::int64_t count,
                                   cudaStream_t stream) {
  std::vector<float> host(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  if (host.empty()) return host;
  float* staging = nullptr;
  SCALEOUT_CUDA_CHECK(cudaMalloc(&staging, host.size() * sizeof(float)));
  launch_to_float(type, data, staging, count, stream);
  SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(host.data(), staging, host.size() * sizeof(float),
                                      cudaMemcpyDeviceToHost, stream));
  SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
  SCALEOUT_CUDA_CHECK(cudaFree(staging));
  return host;
}

void upload_floats(ElementType type, const std::vector<float>& values, void* data,
                   cudaStream_t stream) {
  if (values.empty()) return;
  float* staging = nullptr;
  SCALEOUT_CUDA_CHECK(cudaMalloc(&staging, values.size() * sizeof(float)));
  SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(staging, values.data(), values.size() * sizeof(float),
                                      cudaMemcpyHostToDevice, stream));
  launch_from_float(type, staging, data, static_cast<std::int64_t>(values.size()), stream);
  SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
  SCALEOUT_CUDA_CHECK(cudaFree(staging));
}

void NcclFabric::corrupt_first_element() {
  synchronize();
  // 0x7F in every byte: 3.4e38 in fp32, a NaN in fp16 and bf16.
  SCALEOUT_CUDA_CHECK(cudaMemset(data_, 0x7F, element_bytes(type_)));
}

std::vector<float> NcclFabric::download() const {
  return download_floats(type_, data_, elements_, comm_stream_);
}

}  // namespace scaleout::exec
