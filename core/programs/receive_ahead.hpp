// An optional interface of a fabric that SimGrid's alone offers: hints that let a simulated rank
// keep fewer transfers pending. A program asks for it (dynamic_cast from its Fabric) and, where a
// fabric does not offer it, does what the hints stand for itself: posts its receives ahead and
// waits for its sends at the end. Group views do not offer it.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/programs/fabric.hpp"

namespace scaleout::core {

class ReceiveAhead {
 public:
  virtual ~ReceiveAhead() = default;

  // Declares that this rank takes every transfer `peer` sends it, in order, as if a receive for
  // each were posted before the send, until stop_receiving_ahead_from(peer). A simulated fabric
  // then starts each such transfer when it is sent (SimGrid's permanent receiver), so the program
  // need not post receives ahead. Returns how many transfers `peer` had already sent and this rank
  // not yet received (the program posts their receives at once), or nothing where this run does
  // not receive ahead (the program then posts receives ahead).
  virtual std::optional<std::size_t> receive_ahead_from(int peer) = 0;
  // Ends receive_ahead_from(peer); nothing where it was not in effect.
  virtual void stop_receiving_ahead_from(int peer) = 0;

  // Lets go of the transfers handles[first], handles[first + 1], ... that have completed, in
  // order, up to the first that has not, without waiting (a later wait_all takes them as done);
  // returns that first index. The simulator keeps fewer transfers pending this way (SimGrid scans
  // a rank's pending transfers at each completion).
  virtual std::size_t release_done(const std::vector<Fabric::Handle>& handles,
                                   std::size_t first) = 0;
};

}  // namespace scaleout::core
