// Compute beside communication on an executed rank: a thread that runs queued compute phases in
// order, as a device stream would, while the rank's own thread exchanges gradient buckets.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace scaleout::exec {

class ComputeStream {
 public:
  // `compute(flops)` runs a phase; `now()` reads the rank's clock.
  ComputeStream(std::function<void(double)> compute, std::function<double()> now);
  ~ComputeStream();  // finishes what was queued, then joins
  ComputeStream(const ComputeStream&) = delete;
  ComputeStream& operator=(const ComputeStream&) = delete;

  // Queues a phase; returns its ticket (0, 1, 2, ... in order).
  int enqueue(double flops);
  // Blocks until the ticket's phase is done; returns when it finished.
  double wait(int ticket);

 private:
  void loop();

  std::function<void(double)> compute_;
  std::function<double()> now_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<double> queued_;
  std::vector<double> done_at_;
  int issued_ = 0;
  bool closing_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace scaleout::exec
