// The fabric: the small interface a strategy program runs against. A strategy decides who talks to
// whom and in what order; the fabric decides what that costs (simulated) or moves real numbers
// (executed). Ranges are in gradient elements; the fabric knows the bytes per element.
//
// It is the transport every engine supplies and a group view (core/programs/group_fabric.hpp) wraps
// whole; the other roles are reached through it: the rank's device
// (core/programs/fabric_device.hpp: compute, gradients, local work, the clock) and its mailbox
// (core/programs/fabric_mailbox.hpp: the parameter server's messages). What one engine alone offers
// is an optional interface of its own that a program asks for (SimGrid's receive-ahead hints:
// core/programs/receive_ahead.hpp).
#pragma once

#include <functional>
#include <vector>

#include "core/programs/fabric_device.hpp"
#include "core/programs/fabric_mailbox.hpp"
#include "core/programs/span.hpp"

namespace scaleout::core {

// One step of a fixed-peer exchange: send `send` to the "to" peer, receive `recv` from the
// "from" peer and combine it locally. The next step may start only after this one completed.
struct ExchangeStep {
  Span send;
  Span recv;
  Combine combine = Combine::kAdd;
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

  // Elements a run of exchange steps sends and receives in all, and of those received, the ones
  // added into the local range (Combine::kAdd), which a host that sums pays for.
  struct StepTotals {
    std::int64_t send = 0;
    std::int64_t recv = 0;
    std::int64_t added = 0;
  };
  // Runs `count` exchanges in order, all with the same two peers; step(i) describes the i-th.
  // Steps are generated on demand so that long rings need no memory per step. `totals`, where the
  // caller knows them (null: not known), are the sums of step(i)'s counts over the run: a ring
  // phase computes them in O(1), where summing its steps costs O(count), and a fabric that models
  // the run in aggregate uses them instead of generating every step.
  // REQUIRES: the peers run matching calls (same count, sizes mirrored), as in every ring phase.
  // The default ignores `totals` and posts and waits step by step.
  using StepFn = std::function<ExchangeStep(int)>;
  virtual void run_exchange(int to, int from, int count, const StepFn& step,
                            const StepTotals* totals);

  // The same run with its totals not known to the caller.
  void exchange_steps(int to, int from, int count, const StepFn& step) {
    run_exchange(to, from, count, step, nullptr);
  }
  // The same run with its totals known. REQUIRES: `totals` are the sums of step(i)'s send and
  // recv counts over the run.
  void exchange_run(int to, int from, int count, const StepFn& step, const StepTotals& totals) {
    run_exchange(to, from, count, step, &totals);
  }
  // One exchange step (a convenience for strategies whose peer changes every step).
  void exchange(int to, int from, const ExchangeStep& step) {
    exchange_steps(to, from, 1, [&step](int) { return step; });
  }

  // Tells the fabric which training step the rank's traffic belongs to (for per-step accounting).
  virtual void mark_step(int /*step*/) {}

  // A bucket's exchange is over: the fabric may forget its finished transfers.
  // REQUIRES: every transfer posted since the last call was waited for.
  virtual void end_bucket() {}

  // This rank's device (core/programs/fabric_device.hpp). Every fabric has one; it outlives the
  // fabric's use.
  virtual Device& device() = 0;

  // This rank's mailbox (core/programs/fabric_mailbox.hpp), or null where the fabric carries no
  // messages.
  virtual Mailbox* mailbox_if_any() = 0;
  // The same, for a program that sends messages. Throws std::logic_error, naming the rank, where
  // the fabric carries none.
  Mailbox& mailbox();

  // Seconds since the run started: the device's clock (Device::now()).
  double now() { return device().now(); }
};

}  // namespace scaleout::core
