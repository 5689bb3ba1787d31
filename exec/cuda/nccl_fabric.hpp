// The executed fabric on GPUs: each rank is a process driving one device; NCCL moves ranges of the
// gradient (device memory, in the plan's precision) between ranks. Sends and receives are queued
// and issued at each wait (one ncclGroupStart/End per wait, as exec/grouped_fabric.hpp groups
// them) on one communication stream; a receive that adds lands in a reused scratch buffer and a
// kernel adds it, in stream order. Compute phases (cuBLAS matrix products,
// gemm_compute.hpp) run on a stream of their own, beside the
// exchanges. Every wait has a deadline: a peer that never answers aborts the communicator and names
// the peers.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <memory>
#include <set>
#include <vector>

#include "core/codecs/codec_backend.hpp"
#include "core/programs/check_values.hpp"
#include "core/programs/fabric.hpp"
#include "exec/cuda/gemm_compute.hpp"
#include "exec/gradient_buffer.hpp"
#include "exec/grouped_fabric.hpp"

namespace scaleout::exec {

// NCCL's name for the element type.
ncclDataType_t nccl_type(ElementType type);

// `count` elements of `type` at device address `data`, as floats on the host (waits for `stream`).
std::vector<float> download_floats(ElementType type, const void* data, std::int64_t count,
                                   cudaStream_t stream);

// Writes `values` as `type` at device address `data` on `stream` (waits for it).
void upload_floats(ElementType type, const std::vector<float>& values, void* data,
                   cudaStream_t stream);

// The transport and its rank's device (the GPU) in one; no mailbox.
class NcclFabric : public exec::GroupedFabric, public core::Device {
 public:
  // `comm` is this rank's communicator: the fabric does not own it, but on a timeout or an NCCL
  // error it aborts it and sets it to null. The current device must be the communicator's.
  // Allocates the gradient of `elements` and, for a compressed exchange (fp32 only), its
  // `scratch_words` after it.
  NcclFabric(ncclComm_t& comm, ElementType type, std::int64_t elements,
             const core::CheckValues& values, std::chrono::milliseconds timeout,
             std::int64_t scratch_words = 0);
  ~NcclFabric() override;
  NcclFabric(const NcclFabric&) = delete;
  NcclFabric& operator=(const NcclFabric&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // Sends, receives and exchanges are GroupedFabric's: an exchange's steps are enqueued without
  // the host waiting in between, stream order running step i+1's send after step i's add. (NCCL
  // pipelines within a step; chunks of one step are not overlapped with the next step's.)
  core::Device& device() override { return *this; }
  // Parameter-server messages need a control channel NCCL does not give: none (plans that use
  // them are refused before a GPU rank starts; a program that asks is refused by
  // Fabric::mailbox()).
  core::Mailbox* mailbox_if_any() override { return nullptr; }
  // Copies this rank's known values (made on the device once) into the span, unless
  // fill_gradient_ahead() already wrote the whole gradient for this step.
  void produce_gradient(core::Span span) override;
  void fill_gradient_ahead();
  void mark_step(int) override { filled_ahead_ = false; }
  void compute(double flops) override;
  ComputeTicket compute_async(double flops) override;
  // The device's time the compute finished, on the run's clock.
  double wait_compute(ComputeTicket ticket) override;
  void idle(double seconds) override;
  double now() override;
  // A compressor's work: the device codecs launch on the communication stream, after the
  // transfers queued before it (waited for first, within the deadline).
  void local_work(double seconds, const WordsFn& apply) override;
  core::CodecBackend* device_codecs() override;

  // The gradient as floats (for the exact-sum check) and its raw device memory.
  std::vector<float> download() const;
  void* device_data() { return data_; }
  // Element `i` of the buffer on the device.
  std::byte* at(std::int64_t i) const {
    return static_cast<std::byte*>(data_) + i * element_bytes(type_);
  }
  cudaStream_t comm_stream() const { return comm_stream_; }
  ElementType type() const { return type_; }
  // Overwrites element 0 with a value no exact sum has (the corrupted-receive test hook).
  void corrupt_first_element();
  // Waits for everything queued on the communication stream, within the deadline.
  void synchronize();

 protected:
  // ncclSend/ncclRecv inside one ncclGroupStart/End, then the additions, on the stream.
  void issue(const std::vector<exec::PointOp>& group) override;
  void wait_issued() override { synchronize(); }

 private:
  void ensure_scratch(std::int64_t elements);

  ncclComm_t& comm_;
  int rank_ = 0, size_ = 1;
  ElementType type_;
  std::int64_t elements_;
  std::int64_t scratch_words_ = 0;
  const core::CheckValues& values_;
  std::chrono::milliseconds timeout_;
  void* data_ = nullptr;
  void* scratch_ = nullptr;  // additions land here; grows, never shrinks
  std::int64_t scratch_elements_ = 0;
  void* produced_ = nullptr;  // this rank's known values, made on first use
  bool filled_ahead_ = false;
  cudaStream_t comm_stream_ = nullptr, compute_stream_ = nullptr;
  cudaEvent_t start_event_ = nullptr;
  std::unique_ptr<GemmCompute> gemm_;           // the compute phases, on compute_stream_
  std::unique_ptr<core::CodecBackend> codecs_;  // made at the first compressed exchange
  std::vector<cudaEvent_t> compute_done_;
  std::set<int> waiting_on_;  // peers of the groups issued since the last synchronize
  std::chrono::steady_clock::time_point start_;
};

}  // namespace scaleout::exec
