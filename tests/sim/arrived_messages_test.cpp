// Which waiting message a rank takes next: control messages first, then data from senders not
// sending other data, earliest arrival first; checked case by case and against a plain scan of
// every sender's first message.
#include "sim/arrived_messages.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace scaleout::sim {
namespace {

core::Message message(int from, std::int64_t elements) { return {from, 1, 0, 0, {0, elements}}; }

TEST(ArrivedMessages, ControlFirstThenIdleSendersEarliestFirst) {
  ArrivedMessages a;
  std::unordered_map<int, int> uploading;
  a.push(1.0, message(7, 100));
  a.push(2.0, message(3, 100));
  a.push(3.0, message(9, 0));
  a.push(3.0, message(4, 0));
  EXPECT_EQ(a.pick(uploading), 4);  // control messages first, the lowest sender
  EXPECT_EQ(a.pop(4).from, 4);
  EXPECT_EQ(a.pick(uploading), 9);
  a.pop(9);
  EXPECT_EQ(a.pick(uploading), 7);  // the earliest data
  uploading[7] = 1;
  EXPECT_EQ(a.pick(uploading), 3);  // 7 is sending other data now
  uploading[3] = 2;
  EXPECT_EQ(a.pick(uploading), 7);  // all busy: the earliest
  uploading[7] = 0;
  EXPECT_EQ(a.pick(uploading), 7);
  a.push(1.0, message(2, 100));  // equal arrival times go to the lower sender
  EXPECT_EQ(a.pick(uploading), 2);
}

TEST(ArrivedMessages, EachSenderInTheOrderSent) {
  ArrivedMessages a;
  a.push(1.0, message(5, 0));
  a.push(2.0, message(5, 100));
  a.push(3.0, message(5, 0));
  EXPECT_EQ(a.pop(5).data.count, 0);
  EXPECT_EQ(a.pop(5).data.count, 100);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a.pop(5).data.count, 0);
  EXPECT_TRUE(a.empty());
}

// The rule restated as a scan over every sender's first message.
int scan(const std::map<int, std::deque<std::pair<double, core::Message>>>& queues,
         std::unordered_map<int, int>& uploading) {
  int control = -1;
  std::pair<double, int> idle{0, -1}, any{0, -1};
  for (const auto& [from, queue] : queues) {
    if (queue.empty()) continue;
    double at = queue.front().first;
    if (queue.front().second.data.count == 0) {
      if (control < 0) control = from;  // the map is ordered by sender
      continue;
    }
    if (any.second < 0 || std::make_pair(at, from) < any) any = {at, from};
    if (uploading[from] == 0 && (idle.second < 0 || std::make_pair(at, from) < idle))
      idle = {at, from};
  }
  return control >= 0 ? control : idle.second >= 0 ? idle.second : any.second;
}

TEST(ArrivedMessages, AgreesWithAScanOfAllSenders) {
  std::mt19937 rng(42);
  ArrivedMessages a;
  std::map<int, std::deque<std::pair<double, core::Message>>> queues;
  std::unordered_map<int, int> uploading;
  double now = 0;
  int waiting = 0;
  for (int i = 0; i < 20000; ++i) {
    if (waiting == 0 || rng() % 3 != 0) {
      int from = static_cast<int>(rng() % 50);
      now += (rng() % 4) * 0.5;  // equal arrival times happen
      core::Message m = message(from, rng() % 5 == 0 ? 0 : 100);
      a.push(now, m);
      queues[from].emplace_back(now, m);
      ++waiting;
    } else {
      uploading[static_cast<int>(rng() % 50)] = static_cast<int>(rng() % 2);
      int expected = scan(queues, uploading);
      ASSERT_EQ(a.pick(uploading), expected) << "at draw " << i;
      EXPECT_EQ(a.pop(expected).data.count, queues[expected].front().second.data.count);
      queues[expected].pop_front();
      --waiting;
    }
  }
}

}  // namespace
}  // namespace scaleout::sim
