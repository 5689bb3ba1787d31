// The executed fabric over Gloo's TCP transport: each rank is a process holding a real gradient
// buffer in the plan's precision; sends and receives move ranges of it, receives add or overwrite.
// Every wait has a deadline, so a dead or stuck peer ends the run with an error naming it, never a
// hang. Compute queued with compute_async runs on a thread of its own beside the exchanges.
#pragma once

#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/programs/check_values.hpp"
#include "core/programs/fabric.hpp"
#include "exec/compute_stream.hpp"
#include "exec/gradient_buffer.hpp"

namespace scaleout::exec {

// A peer did not answer in time, or the transport failed; what() names both ranks.
class PeerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The transport, its rank's device (the CPU, or a GPU worker's) and mailbox, in one.
class GlooFabric : public core::Fabric, public core::Device, public core::Mailbox {
 public:
  // `data` is this rank's gradient buffer and `values` the known values workers produce; both must
  // outlive the fabric. `chunk_elements`: pipeline granularity of exchange_steps (0: none).
  GlooFabric(std::shared_ptr<gloo::Context> context, GradientBuffer& data,
             const core::CheckValues& values, std::chrono::milliseconds timeout,
             std::int64_t chunk_elements = 0);
  ~GlooFabric() override;

  int rank() const override { return context_->rank; }
  int size() const override { return context_->size; }
  Handle post_send(int peer, core::Span span) override;
  Handle post_recv(int peer, core::Span span, core::Combine combine) override;
  void wait_all(const std::vector<Handle>& handles) override;
  // Ring phases, pipelined: each step's segment travels in chunks, and chunk c of the next step
  // leaves as soon as chunk c of this step arrived and was combined, so the link never waits for a
  // whole segment. Used when every step sends what the step before received (all ring phases);
  // other patterns go step by step. The totals are not needed.
  void run_exchange(int to, int from, int count, const StepFn& step,
                    const StepTotals* totals) override;
  core::Device& device() override { return *this; }
  core::Mailbox* mailbox_if_any() override { return this; }
  void send_message(int peer, const core::Message& m) override;
  core::Message receive_message() override;
  void accept_data(core::Combine combine) override;
  void end_bucket() override;
  // Writes this rank's known values (values.value(rank, i)) into the span, unless
  // fill_gradient_ahead() already did for this step.
  void produce_gradient(core::Span span) override;
  // Writes the whole gradient's known values now, before the step's clock starts, so that the
  // check's values cost the measured step nothing; the step's produce_gradient calls then write
  // nothing. Holds until the next mark_step().
  void fill_gradient_ahead();
  void mark_step(int) override { filled_ahead_ = false; }
  void flush_messages() override { reap_message_sends(true); }
  // Compute phases wait flops / `flops_per_s` instead of running the kernel (see
  // ExecOptions::emulated_device_flops); 0: the kernel. REQUIRES: no compute_async yet.
  void emulate_device(double flops_per_s) { emulated_flops_ = flops_per_s; }
  // A GPU worker beside CPU ranks (a parameter server's, as BytePS runs them): compute phases run
  // `device_compute` (on the GPU, returning when done) and each produced range first comes over
  // from device memory, `stage(bytes)` timing that copy. REQUIRES: no compute_async yet.
  void use_device(std::function<void(double)> device_compute,
                  std::function<void(std::int64_t)> stage) {
    device_compute_ = std::move(device_compute);
    stage_ = std::move(stage);
  }
  // Several NICs per node: `rails` are connections over rails 1, 2, ... (this fabric's own context
  // is rail 0) and `rank_node` the node of every rank. A transfer between ranks on different nodes
  // then moves in one equal part per rail, at once, as the simulator stripes it.
  void stripe_over(std::vector<std::shared_ptr<gloo::Context>> rails, std::vector<int> rank_node) {
    rails_ = std::move(rails);
    rank_node_ = std::move(rank_node);
  }
  void compute(double flops) override;
  ComputeTicket compute_async(double flops) override;
  double wait_compute(ComputeTicket ticket) override;
  void idle(double seconds) override;
  // Runs `apply` on the buffer's fp32 words (compressed exchanges; their plans are fp32).
  void local_work(double seconds, const WordsFn& apply) override;
  void accept_update(double seconds, const UpdateFn& apply) override;
  double now() override;

 private:
  struct Pending {
    std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> buffers;  // one per rail used
    int peer = -1;
    bool send = false;
    bool done = false;
    core::Span span;
    core::Combine combine = core::Combine::kReplace;
    std::unique_ptr<std::byte[]> scratch;  // additions land here first (uninitialised: no zeroing)
    std::size_t scratch_capacity = 0;      // bytes
  };
  void wait_one(Pending& p);
  // How many rails a transfer with `peer` is striped over (1 inside a node or with one NIC).
  int rails_to(int peer) const;
  // Posts p's transfer of `bytes` at `base` on `slot`: a send or a receive (p.send), whole or in
  // one part per rail. Parts are cut on element boundaries.
  void post_parts(Pending& p, std::byte* base, std::size_t bytes, std::uint64_t slot);
  // Scratch buffers are reused: a fresh chunk-sized allocation is an mmap plus a page fault per
  // page, which on loopback costs as much as the transfer.
  void take_scratch(Pending& p, std::size_t bytes);
  void give_back_scratch(Pending& p);
  void reap_message_sends(bool all);

  std::shared_ptr<gloo::Context> context_;
  std::vector<std::shared_ptr<gloo::Context>> rails_;  // rails 1, 2, ... (empty: one NIC)
  std::vector<int> rank_node_;
  GradientBuffer& data_;
  const core::CheckValues& values_;
  std::chrono::milliseconds timeout_;
  std::int64_t chunk_elements_;
  std::vector<Pending> pending_;
  std::multimap<std::size_t, std::unique_ptr<std::byte[]>> spare_scratch_;  // by capacity
  std::vector<std::unique_ptr<Pending>> message_sends_;  // headers and data in flight
  std::vector<std::unique_ptr<std::vector<std::int64_t>>> header_storage_;
  std::vector<std::byte> held_;
  core::Span held_span_;
  std::unique_ptr<GradientBuffer> produced_;  // this rank's known values, made on first use
  bool filled_ahead_ = false;
  double emulated_flops_ = 0;
  std::function<void(double)> device_compute_;  // empty: this CPU computes (or emulates)
  std::function<void(std::int64_t)> stage_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::unique_ptr<ComputeStream> stream_;  // made on first compute_async
};

}  // namespace scaleout::exec
