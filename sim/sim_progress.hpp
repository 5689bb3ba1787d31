// Progress of a simulation that runs in a child process: the child counts the messages its ranks
// send in a page it shares with the parent, which reads the count while it waits. A simulation of
// tens of thousands of ranks runs for minutes; the count against the work estimate says how far.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace scaleout::sim {

// Lives in memory shared by the parent and the child forked after it was made.
struct SimProgress {
  std::atomic<std::uint64_t> messages{0};  // point-to-point messages sent so far, all ranks
  std::atomic<double> simulated_s{0};      // the simulated clock at the last message
};

// A SimProgress in an anonymous shared mapping (nullptr when the mapping cannot be made: then
// there is no progress to read, and nothing else changes).
std::shared_ptr<SimProgress> make_shared_progress();

// In the simulating process: where every message sent is counted from now on (nullptr: nowhere).
void count_progress_into(SimProgress* progress);

// One message sent at simulated time `now_s` (the fabric calls it for every message).
void note_message_sent(double now_s);

// What a parent is told while it waits.
struct ProgressReport {
  std::uint64_t messages = 0;     // sent so far
  double estimated_messages = 0;  // sim/work_estimate.hpp: within 20% here
  double simulated_s = 0;         // simulated clock
  double elapsed_s = 0;           // wall time since the simulation started
  bool finished = false;          // the child has ended: the last report, its final count
};

}  // namespace scaleout::sim
