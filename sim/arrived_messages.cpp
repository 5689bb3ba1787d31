#include "sim/arrived_messages.hpp"

#include <cassert>

namespace scaleout::sim {

void ArrivedMessages::index_front(int from) {
  const auto& queue = queues_[from];
  if (queue.empty()) return;
  const auto& [at, m] = queue.front();
  if (m.data.count == 0) {
    control_.insert(from);
  } else {
    data_.insert({at, from});
  }
}

void ArrivedMessages::push(double at, const core::Message& m) {
  auto& queue = queues_[m.from];
  queue.emplace_back(at, m);
  ++count_;
  if (queue.size() == 1) index_front(m.from);
}

int ArrivedMessages::pick(const std::unordered_map<int, int>& uploading) const {
  assert(!empty());
  if (!control_.empty()) return *control_.begin();
  // Few senders upload at once (each receiver takes one message's data at a time), so the scan
  // stops early.
  for (const auto& [at, from] : data_) {
    auto it = uploading.find(from);
    if (it == uploading.end() || it->second == 0) return from;
  }
  return data_.begin()->second;
}

core::Message ArrivedMessages::pop(int from) {
  auto& queue = queues_[from];
  assert(!queue.empty());
  auto [at, m] = queue.front();
  if (m.data.count == 0) {
    control_.erase(from);
  } else {
    data_.erase({at, from});
  }
  queue.pop_front();
  --count_;
  index_front(from);
  return m;
}

}  // namespace scaleout::sim
