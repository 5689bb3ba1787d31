// The device role of a fabric (core/programs/fabric.hpp): what a rank's own device does between
// transfers, and the rank's clock. Training programs compute, produce gradients and wait on it;
// compressed exchanges run their codecs on it. A fabric gives its rank's device through
// Fabric::device(); a group view gives the rank's own device, whatever the group.
#pragma once

#include <functional>
#include <vector>

#include "core/programs/span.hpp"

namespace scaleout::core {

class CodecBackend;  // core/codecs/codec_backend.hpp

class Device {
 public:
  virtual ~Device() = default;

  // Seconds since the run started: the rank's one clock, which Fabric::now() reads too.
  virtual double now() = 0;

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

  // This rank ran collectives from `since` until now beside the compute it queued at `since`:
  // a device that models their contention (the device's overlap_slowdown,
  // core/model/overlap_slowdown.hpp) makes that compute end later and returns the seconds added.
  // Executed devices contend for real; the default adds nothing.
  virtual double communicated_beside(double since) {
    (void)since;
    return 0;
  }

  // Lets `seconds` pass without using the network or the device.
  virtual void idle(double seconds) = 0;

  // Local work on this rank's own numbers that a program does between transfers (a compressor's
  // encoding and decoding): `apply` gets the rank's buffer as 4-byte fp32 words, the gradient's
  // elements first, then the program's scratch. Devices that hold data run it for real (its time
  // is what it takes); the default, for devices that hold none, lets `seconds` pass instead (the
  // work's modelled cost) and never calls `apply`.
  using WordsFn = std::function<void(float* words)>;
  virtual void local_work(double seconds, const WordsFn& apply) {
    (void)apply;
    idle(seconds);
  }

  // This worker's backward pass wrote its gradient of `span`. Executed devices fill the range
  // with the rank's known values (CheckValues in core/programs/check_values.hpp), which is what
  // their exact-sum checks expect, unless their engine wrote them before the step's clock started;
  // simulated devices hold no data and do nothing (the default).
  virtual void produce_gradient(Span span) { (void)span; }

  // The codecs local work runs on this device's words: null where the words are in host memory
  // (the program's host codecs serve; the default), a GPU's device codecs otherwise.
  virtual CodecBackend* device_codecs() { return nullptr; }

 private:
  std::vector<double> done_at_;  // default compute_async: when each ticket's compute finished
};

}  // namespace scaleout::core
