#include "exec/compute_stream.hpp"

namespace scaleout::exec {

ComputeStream::ComputeStream(std::function<void(double)> compute, std::function<double()> now)
    : compute_(std::move(compute)), now_(std::move(now)), thread_([this] { loop(); }) {}

ComputeStream::~ComputeStream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

int ComputeStream::enqueue(double flops) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queued_.push_back(flops);
  }
  changed_.notify_all();
  return issued_++;
}

double ComputeStream::wait(int ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return static_cast<int>(done_at_.size()) > ticket; });
  return done_at_[ticket];
}

void ComputeStream::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return closing_ || !queued_.empty(); });
    if (queued_.empty()) return;  // closing, nothing left
    double flops = queued_.front();
    queued_.pop_front();
    lock.unlock();
    compute_(flops);
    double at = now_();
    lock.lock();
    done_at_.push_back(at);
    changed_.notify_all();
  }
}

}  // namespace scaleout::exec
