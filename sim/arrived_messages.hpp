// Message headers that arrived at one rank and wait to be taken, per sender in the order sent,
// with the choice of which sender's message the rank takes next. The choice costs O(log n) plus
// the number of senders skipped because they are sending other data: a server of thousands of
// workers takes every message through it.
#pragma once

#include <deque>
#include <set>
#include <unordered_map>
#include <utility>

#include "core/programs/fabric.hpp"

namespace scaleout::sim {

class ArrivedMessages {
 public:
  // A header from m.from arrived at time `at` (after those it sent before).
  void push(double at, const core::Message& m);
  bool empty() const { return count_ == 0; }

  // The sender whose first waiting message is taken next: messages without data first (the
  // lowest sender); of those carrying data, the one that arrived first among senders not sending
  // other data now (uploading[from] == 0, absent meaning 0); when all are, the first to arrive.
  // Ties in arrival time go to the lower sender. REQUIRES: !empty().
  int pick(const std::unordered_map<int, int>& uploading) const;

  // Removes and returns the first waiting message of `from`. REQUIRES: one is waiting.
  core::Message pop(int from);

 private:
  void index_front(int from);

  std::unordered_map<int, std::deque<std::pair<double, core::Message>>> queues_;
  std::set<int> control_;                  // senders whose first message carries no data
  std::set<std::pair<double, int>> data_;  // (arrival, sender) of first messages with data
  long count_ = 0;
};

}  // namespace scaleout::sim
