// The fabric: the small interface a strategy program runs against. A strategy decides who talks to
// whom and in what order; the fabric decides what that costs (simulated) or moves real numbers
// (executed). Ranges are in gradient elements; the fabric knows the bytes per element.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace scaleout::core {

class CodecBackend;  // core/codec_backend.hpp

// A contiguous range of gradient elements [begin, begin + count).
struct Span {
  std::int64_t begin = 0;
  std::int64_t count = 0;
  std::int64_t end() const { return begin + count; }
  bool operator==(const Span&) const = default;
};

// What a receive does with the data it gets: overwrite the local range, or add into it.
enum class Combine { kReplace, kAdd };

// One step of a fixed-peer exchange: send `send` to the "to" peer, receive `recv` from the
// "from" peer and combine it locally. The next step may start only after this one completed.
struct ExchangeStep {
  Span send;
  Span recv;
  Combine combine = Combine::kAdd;
};

// A message for programs that react to whoever talks to them (parameter servers). `kind`, `a`
// and `b` are the program's own; `data` is a gradient range carried along (may be empty).
struct Message {
  int from = -1;
  int kind = 0;
  std::int64_t a = 0;
  std::int64_t b = 0;
  Span data;
};

class Fabric {
 public:
  using Handle = int;
  virtual ~Fabric() = default;

  // This rank and the number of ranks (workers first, then parameter servers, if any).
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Non-blocking point-to-point transfers. Messages between one pair of ranks are matched in the
  // order they were posted. A receive's combine takes effect once it completed (after wait_all).
  virtual Handle post_send(int peer, Span span) = 0;
  virtual Handle post_recv(int peer, Span span, Combine combine) = 0;
  virtual void wait_all(const std::vector<Handle>& handles) = 0;
  // Declares that this rank takes every transfer `peer` sends it, in order, as if a receive for
  // each were posted before the send, until stop_receiving_ahead_from(peer). A simulated fabric
  // then starts each such transfer when it is sent (SimGrid's permanent receiver), so the program
  // need not post receives ahead. Returns how many transfers `peer` had already sent and this rank
  // not yet received (the program posts their receives at once), or nothing where the fabric does
  // not (the default: post receives ahead).
  virtual std::optional<std::size_t> receive_ahead_from(int peer) {
    (void)peer;
    return std::nullopt;
  }
  virtual void stop_receiving_ahead_from(int peer) { (void)peer; }
  // Lets go of the transfers handles[first], handles[first + 1], ... that have completed, in
  // order, up to the first that has not, without waiting (a later wait_all takes them as done);
  // returns that first index. The simulator keeps fewer transfers pending this way (SimGrid scans
  // a rank's pending transfers at each completion); the default lets go of none.
  virtual std::size_t release_done(const std::vector<Handle>& handles, std::size_t first) {
    (void)handles;
    return first;
  }

  // Runs `count` exchanges in order, all with the same two peers; step(i) describes the i-th.
  // REQUIRES: the peers run matching calls (same count, sizes mirrored), as in every ring phase.
  // The default posts and waits step by step; a simulated fabric may model the steps in aggregate.
  // Steps are generated on demand so that long rings need no memory per step.
  using StepFn = std::function<ExchangeStep(int)>;
  virtual void exchange_steps(int to, int from, int count, const StepFn& step);

  // Elements a run of exchange steps sends and receives in all, and of those received, the ones
  // added into the local range (Combine::kAdd), which a host that sums pays for.
  struct StepTotals {
    std::int64_t send = 0;
    std::int64_t recv = 0;
    std::int64_t added = 0;
  };
  // The same run, with its totals known to the caller (a ring phase computes them in O(1), where
  // summing its steps costs O(count), and every rank of a ring has count = n - 1): a fabric that
  // models the run in aggregate uses them instead of generating every step. The default ignores
  // them and calls exchange_steps. REQUIRES: `totals` are the sums of step(i)'s send and recv
  // counts over the run.
  virtual void exchange_run(int to, int from, int count, const StepFn& step,
                            const StepTotals& totals) {
    (void)totals;
    exchange_steps(to, from, count, step);
  }

  // One exchange step (a convenience for strategies whose peer changes every step).
  void exchange(int to, int from, const ExchangeStep& step) {
    exchange_steps(to, from, 1, [&step](int) { return step; });
  }

  // Sends `m` to `peer` without waiting for it to arrive; the values of m.data are taken from this
  // rank's buffer now. Messages from one sender to one receiver arrive in the order sent.
  virtual void send_message(int peer, const Message& m) = 0;
  // Blocks until a message for this rank arrives, from anyone; returns it with `from` set. The data
  // it carries is held until accept_data() or the next receive_message().
  virtual Message receive_message() = 0;
  // Combines the data of the last received message into this rank's buffer at its range.
  virtual void accept_data(Combine combine) = 0;

  // --- What the training programs call around the strategy (every engine) ---

  // Tells the fabric which training step the rank's traffic belongs to (for per-step accounting).
  virtual void mark_step(int /*step*/) {}

  // A bucket's exchange is over: the fabric may forget its finished transfers.
  // REQUIRES: every transfer posted since the last call was waited for.
  virtual void end_bucket() {}

  // This worker's backward pass wrote its gradient of `span`. Executed fabrics fill the range
  // with the rank's known values (CheckValues in core/check_values.hpp), which is what their
  // exact-sum checks expect, unless their engine wrote them before the step's clock started;
  // simulated fabrics hold no data and do nothing.
  virtual void produce_gradient(Span /*span*/) {}

  // Waits until every message this rank sent was taken by its receiver (executed fabrics; in a
  // simulation a sent message cannot be lost, so nothing to wait for).
  virtual void flush_messages() {}

  // Lets `seconds` pass without using the network or the device.
  virtual void idle(double seconds) = 0;

  // Local work on this rank's own numbers that a program does between transfers (a compressor's
  // encoding and decoding): `apply` gets the rank's buffer as 4-byte fp32 words, the gradient's
  // elements first, then the program's scratch. Fabrics that hold data run it for real (its time
  // is what it takes); the default, for fabrics that hold none, lets `seconds` pass instead (the
  // work's modelled cost) and never calls `apply`.
  using WordsFn = std::function<void(float* words)>;
  virtual void local_work(double seconds, const WordsFn& apply) {
    (void)apply;
    idle(seconds);
  }

  // The codecs local work runs on this fabric's words: null where the words are in host memory
  // (the program's host codecs serve), a GPU fabric's device codecs otherwise.
  virtual CodecBackend* device_codecs() { return nullptr; }

  // Combines the data of the last received message by the program's own rule instead of
  // accept_data's (a server's delay-compensated update): `apply` gets this rank's buffer as fp32
  // words, as local_work does, and the received values as fp32 words. Fabrics that hold data run
  // it; the default, for fabrics that hold none, lets `seconds` pass (the update's modelled cost).
  using UpdateFn = std::function<void(float* words, const float* received)>;
  virtual void accept_update(double seconds, const UpdateFn& apply) {
    (void)apply;
    idle(seconds);
  }

  // A compute phase of `flops` floating-point operations (at the device's effective rate).
  virtual void compute(double flops) = 0;

  // Compute beside communication, as on a device stream: queues `flops` to run after everything
  // queued before, while this rank goes on (e.g. exchanging the buckets backward already made).
  // Returns a ticket for wait_compute(). The default computes at once, in the caller.
  using ComputeTicket = int;
  virtual ComputeTicket compute_async(double flops);
  // Blocks until the ticket's compute is done; returns the time (now()) it finished.
  // REQUIRES: tickets are waited for in the order they were issued (each at most once).
  virtual double wait_compute(ComputeTicket ticket);

  // Seconds since the run started.
  virtual double now() = 0;

 private:
  std::vector<double> done_at_;  // default compute_async: when each ticket's compute finished
};

}  // namespace scaleout::core
