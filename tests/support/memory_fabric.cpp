#include "tests/support/memory_fabric.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace scaleout::testing {

namespace {

// Messages in flight between each ordered pair of ranks, in posting order.
struct Post {
  std::mutex mutex;
  std::condition_variable arrived;
  std::map<std::pair<int, int>, std::deque<std::vector<float>>> queues;
  std::map<int, std::deque<std::pair<core::Message, std::vector<float>>>> inboxes;
};

// The transport, its rank's device and mailbox in one.
class MemoryFabric : public core::Fabric, public core::Device, public core::Mailbox {
 public:
  MemoryFabric(Post& post, int rank, int size, std::vector<float>& data,
               std::vector<exec::PointOp>* record)
      : post_(post), rank_(rank), size_(size), data_(data), record_(record) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  core::Device& device() override { return *this; }
  core::Mailbox* mailbox_if_any() override { return this; }

  Handle post_send(int peer, core::Span span) override {
    if (record_) record_->push_back({true, peer, span, core::Combine::kReplace});
    std::vector<float> payload(data_.begin() + span.begin, data_.begin() + span.end());
    {
      std::lock_guard<std::mutex> lock(post_.mutex);
      post_.queues[{rank_, peer}].push_back(std::move(payload));
    }
    post_.arrived.notify_all();
    pending_.push_back({-1, span, core::Combine::kReplace});
    return static_cast<Handle>(pending_.size() - 1);
  }

  Handle post_recv(int peer, core::Span span, core::Combine combine) override {
    if (record_) record_->push_back({false, peer, span, combine});
    pending_.push_back({peer, span, combine});
    return static_cast<Handle>(pending_.size() - 1);
  }

  void wait_all(const std::vector<Handle>& handles) override {
    for (Handle h : handles) {
      Pending& p = pending_[h];
      if (p.peer < 0 || p.done) continue;  // sends are buffered: complete at once
      std::vector<float> payload;
      {
        std::unique_lock<std::mutex> lock(post_.mutex);
        auto& q = post_.queues[{p.peer, rank_}];
        if (!post_.arrived.wait_for(lock, std::chrono::seconds(10), [&] { return !q.empty(); }))
          throw std::runtime_error("rank " + std::to_string(rank_) + " waited 10 s for rank " +
                                   std::to_string(p.peer));
        payload = std::move(q.front());
        q.pop_front();
      }
      if (static_cast<std::int64_t>(payload.size()) != p.span.count)
        throw std::runtime_error("rank " + std::to_string(rank_) + " got " +
                                 std::to_string(payload.size()) + " elements from rank " +
                                 std::to_string(p.peer) + ", expected " +
                                 std::to_string(p.span.count));
      for (std::int64_t i = 0; i < p.span.count; ++i) {
        float& dst = data_[p.span.begin + i];
        dst = p.combine == core::Combine::kAdd ? dst + payload[i] : payload[i];
      }
      p.done = true;
    }
  }

  void send_message(int peer, const core::Message& m) override {
    core::Message sent = m;
    sent.from = rank_;
    std::vector<float> payload(data_.begin() + m.data.begin, data_.begin() + m.data.end());
    {
      std::lock_guard<std::mutex> lock(post_.mutex);
      post_.inboxes[peer].emplace_back(sent, std::move(payload));
    }
    post_.arrived.notify_all();
  }

  core::Message receive_message() override {
    std::unique_lock<std::mutex> lock(post_.mutex);
    auto& q = post_.inboxes[rank_];
    if (!post_.arrived.wait_for(lock, std::chrono::seconds(10), [&] { return !q.empty(); }))
      throw std::runtime_error("rank " + std::to_string(rank_) + " waited 10 s for a message");
    auto [m, payload] = std::move(q.front());
    q.pop_front();
    held_ = std::move(payload);
    held_span_ = m.data;
    return m;
  }

  void accept_data(core::Combine combine) override {
    for (std::int64_t i = 0; i < held_span_.count; ++i) {
      float& dst = data_[held_span_.begin + i];
      dst = combine == core::Combine::kAdd ? dst + held_[i] : held_[i];
    }
  }

  // Lets the update's modelled time pass (none here) and does not apply it, as the simulator's.
  void accept_update(double seconds, const UpdateFn&) override { idle(seconds); }

  // A worker's backward writes its known values, as the executed fabrics' workers do.
  void produce_gradient(core::Span span) override {
    for (std::int64_t i = span.begin; i < span.end(); ++i) data_[i] = initial_value(rank_, i);
  }
  void compute(double) override {}
  void idle(double) override {}
  double now() override { return 0; }

 private:
  struct Pending {
    int peer;
    core::Span span;
    core::Combine combine;
    bool done = false;
  };
  Post& post_;
  int rank_, size_;
  std::vector<float>& data_;
  std::vector<exec::PointOp>* record_;  // optional
  std::vector<Pending> pending_;
  std::vector<float> held_;
  core::Span held_span_;
};

}  // namespace

std::vector<std::vector<float>> run_in_memory(core::StrategyProgram& program, int workers,
                                              int servers, std::int64_t elements,
                                              const std::vector<core::Span>& buckets) {
  return run_ranks_in_memory(
      workers, servers, elements,
      [&](core::Fabric& fabric) {
        for (const auto& b : buckets) program.run(fabric, b);
      },
      /*keep_servers=*/false);
}

std::vector<std::vector<float>> run_ranks_in_memory(
    int workers, int servers, std::int64_t elements, const std::function<void(core::Fabric&)>& body,
    bool keep_servers, std::vector<std::vector<exec::PointOp>>* record) {
  int ranks = workers + servers;
  if (record) record->assign(ranks, {});
  std::vector<std::vector<float>> data(ranks, std::vector<float>(elements, 0.0f));
  for (int r = 0; r < workers; ++r)
    for (std::int64_t i = 0; i < elements; ++i) data[r][i] = initial_value(r, i);
  Post post;
  std::vector<std::exception_ptr> errors(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        MemoryFabric fabric(post, r, ranks, data[r], record ? &(*record)[r] : nullptr);
        body(fabric);
      } catch (...) {
        errors[r] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  if (!keep_servers) data.resize(workers);
  return data;
}

std::vector<std::vector<exec::PointOp>> record_in_memory(core::StrategyProgram& program,
                                                         int workers, int servers,
                                                         std::int64_t elements,
                                                         const std::vector<core::Span>& buckets) {
  std::vector<std::vector<exec::PointOp>> record;
  run_ranks_in_memory(
      workers, servers, elements,
      [&](core::Fabric& fabric) {
        for (const auto& b : buckets) program.run(fabric, b);
      },
      /*keep_servers=*/false, &record);
  return record;
}

}  // namespace scaleout::testing
