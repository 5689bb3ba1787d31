// The executed fabric over Gloo's TCP transport: each rank is a process holding a real gradient
// buffer of floats; sends and receives move ranges of it, receives add or overwrite. Every wait has
// a deadline, so a dead or stuck peer ends the run with an error naming it, never a hang.
#pragma once

#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/fabric.hpp"

namespace scaleout::exec {

// A peer did not answer in time, or the transport failed; what() names both ranks.
class PeerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class GlooFabric : public core::Fabric {
 public:
  // `data` is this rank's gradient buffer; it must outlive the fabric.
  // `chunk_elements`: pipeline granularity of exchange_steps (0: no pipelining).
  GlooFabric(std::shared_ptr<gloo::Context> context, std::vector<float>& data, std::chrono::milliseconds timeout,
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
  // other patterns go step by step.
  void exchange_steps(int to, int from, int count, const StepFn& step) override;
  void send_message(int peer, const core::Message& m) override;
  core::Message receive_message() override;
  void accept_data(core::Combine combine) override;
  void compute(double flops) override;
  void idle(double seconds) override;
  double now() override;

  // Called at the end of every compute phase with the rank's buffer: how an executed worker
  // produces its gradient (the values the exact-sum checks expect). None by default.
  void set_gradient_producer(std::function<void(std::vector<float>&)> producer) { producer_ = std::move(producer); }

  // Forgets completed transfers. REQUIRES: every posted transfer was waited for.
  void reset();
  // Waits until every message sent has been received.
  void flush_messages() { reap_message_sends(true); }

 private:
  struct Pending {
    std::unique_ptr<gloo::transport::UnboundBuffer> buffer;
    int peer = -1;
    bool send = false;
    bool done = false;
    core::Span span;
    core::Combine combine = core::Combine::kReplace;
    std::unique_ptr<float[]> scratch;  // additions land here first (uninitialised: no zeroing)
    std::int64_t scratch_capacity = 0;
  };
  void wait_one(Pending& p);
  // Scratch buffers are reused: a fresh chunk-sized allocation is an mmap plus a page fault per
  // page, which on loopback costs as much as the transfer.
  void take_scratch(Pending& p, std::int64_t count);
  void give_back_scratch(Pending& p);
  void reap_message_sends(bool all);

  std::shared_ptr<gloo::Context> context_;
  std::vector<float>& data_;
  std::chrono::milliseconds timeout_;
  std::int64_t chunk_elements_;
  std::vector<Pending> pending_;
  std::multimap<std::int64_t, std::unique_ptr<float[]>> spare_scratch_;  // by capacity
  std::vector<std::unique_ptr<Pending>> message_sends_;  // headers and data in flight
  std::vector<std::unique_ptr<std::vector<std::int64_t>>> header_storage_;
  std::vector<float> held_;
  core::Span held_span_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  volatile float sink_ = 0;
  std::function<void(std::vector<float>&)> producer_;  // keeps the compute loop from being optimised away
};

}  // namespace scaleout::exec
