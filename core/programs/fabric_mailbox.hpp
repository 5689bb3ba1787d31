// The mailbox role of a fabric (core/programs/fabric.hpp): messages for programs that react to
// whoever talks to them (the parameter server's workers and servers). A fabric gives its rank's
// mailbox through Fabric::mailbox(), where its engine has a channel for them (NCCL's has none).
#pragma once

#include <cstdint>
#include <functional>

#include "core/programs/span.hpp"

namespace scaleout::core {

// A message. `kind`, `a` and `b` are the program's own; `data` is a gradient range carried along
// (may be empty).
struct Message {
  int from = -1;
  int kind = 0;
  std::int64_t a = 0;
  std::int64_t b = 0;
  Span data;
};

class Mailbox {
 public:
  virtual ~Mailbox() = default;

  // Sends `m` to `peer` without waiting for it to arrive; the values of m.data are taken from this
  // rank's buffer now. Messages from one sender to one receiver arrive in the order sent.
  virtual void send_message(int peer, const Message& m) = 0;
  // Blocks until a message for this rank arrives, from anyone; returns it with `from` set. The data
  // it carries is held until accept_data() or the next receive_message().
  virtual Message receive_message() = 0;
  // Combines the data of the last received message into this rank's buffer at its range.
  virtual void accept_data(Combine combine) = 0;

  // Combines the data of the last received message by the program's own rule instead of
  // accept_data's (a server's delay-compensated update): `apply` gets this rank's buffer as fp32
  // words, as Device::local_work does, and the received values as fp32 words. Mailboxes whose
  // rank holds data run it; those whose rank holds none let `seconds` pass instead (the update's
  // modelled cost, as their device's idle() lets it pass) and never call `apply`.
  using UpdateFn = std::function<void(float* words, const float* received)>;
  virtual void accept_update(double seconds, const UpdateFn& apply) = 0;

  // Waits until every message this rank sent was taken by its receiver (executed fabrics; in a
  // simulation a sent message cannot be lost, so nothing to wait for: the default).
  virtual void flush_messages() {}
};

}  // namespace scaleout::core
