// A group view of a fabric hands every role to the fabric it wraps: transfers with the group's
// ranks translated, the rank's own device as it is, and messages through the underlying mailbox,
// addressed and signed with group ranks. Observed on a fabric that records what reaches it.
#include "core/programs/group_fabric.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/programs/receive_ahead.hpp"

namespace scaleout::core {
namespace {

// Rank 2 of 8: records every call that reaches it, in order; holds four words of data and a queue
// of messages to receive. Without a mailbox where told so.
class RecordingFabric : public Fabric, public Device, public Mailbox {
 public:
  explicit RecordingFabric(bool carries_messages = true) : carries_(carries_messages) {}

  int rank() const override { return 2; }
  int size() const override { return 8; }
  Handle post_send(int peer, Span span) override {
    return note("send " + std::to_string(peer) + " " + std::to_string(span.count));
  }
  Handle post_recv(int peer, Span span, Combine) override {
    return note("recv " + std::to_string(peer) + " " + std::to_string(span.count));
  }
  void wait_all(const std::vector<Handle>& handles) override {
    note("wait " + std::to_string(handles.size()));
  }
  void run_exchange(int to, int from, int count, const StepFn&, const StepTotals* totals) override {
    note("exchange " + std::to_string(to) + " " + std::to_string(from) + " " +
         std::to_string(count) + (totals ? " sends " + std::to_string(totals->send) : ""));
  }
  void mark_step(int step) override { note("step " + std::to_string(step)); }
  void end_bucket() override { note("end bucket"); }
  Device& device() override { return *this; }
  Mailbox* mailbox_if_any() override { return carries_ ? this : nullptr; }

  double now() override { return clock; }
  void compute(double flops) override {
    note("compute " + std::to_string(static_cast<int>(flops)));
    clock += flops;
  }
  void idle(double seconds) override {
    note("idle " + std::to_string(static_cast<int>(seconds)));
    clock += seconds;
  }
  void local_work(double, const WordsFn& apply) override {
    note("local work");
    apply(words.data());
  }
  void produce_gradient(Span span) override { note("produce " + std::to_string(span.count)); }

  void send_message(int peer, const Message& m) override {
    note("message to " + std::to_string(peer) + " kind " + std::to_string(m.kind));
  }
  Message receive_message() override {
    Message m = inbox.front();
    inbox.pop_front();
    note("message from " + std::to_string(m.from));
    return m;
  }
  void accept_data(Combine) override { note("accept data"); }
  void accept_update(double, const UpdateFn& apply) override {
    note("accept update");
    float received[4] = {1, 1, 1, 1};
    apply(words.data(), received);
  }
  void flush_messages() override { note("flush"); }

  std::vector<std::string> calls;
  std::deque<Message> inbox;
  std::vector<float> words = {0, 0, 0, 0};
  double clock = 0;

 private:
  Handle note(std::string call) {
    calls.push_back(std::move(call));
    return static_cast<Handle>(calls.size() - 1);
  }
  bool carries_;
};

TEST(GroupFabric, TranslatesTheTransfersRanks) {
  RecordingFabric base;
  GroupFabric group(base, {5, 2, 7});
  EXPECT_EQ(group.rank(), 1);
  EXPECT_EQ(group.size(), 3);
  group.wait_all({group.post_send(0, {0, 3}), group.post_recv(2, {3, 1}, Combine::kAdd)});
  group.exchange_run(
      2, 0, 4, [](int) { return ExchangeStep{}; }, Fabric::StepTotals{6, 6, 6});
  group.exchange_steps(0, 2, 5, [](int) { return ExchangeStep{}; });
  group.mark_step(3);
  group.end_bucket();
  EXPECT_EQ(base.calls,
            (std::vector<std::string>{"send 5 3", "recv 7 1", "wait 2", "exchange 7 5 4 sends 6",
                                      "exchange 5 7 5", "step 3", "end bucket"}));
}

TEST(GroupFabric, IsTheRanksOwnDevice) {
  RecordingFabric base;
  GroupFabric group(base, {5, 2, 7});
  EXPECT_EQ(&group.device(), static_cast<Device*>(&base));
  Device& device = group.device();
  device.compute(4);
  device.produce_gradient({0, 4});
  device.local_work(1, [](float* words) { words[1] = 3; });
  device.idle(2);
  EXPECT_EQ(device.wait_compute(device.compute_async(5)), 11);  // the default, on base's clock
  EXPECT_EQ(group.now(), 11);
  EXPECT_EQ(device.device_codecs(), nullptr);
  EXPECT_EQ(base.words[1], 3);  // the work ran on the rank's own words
  EXPECT_EQ(base.calls, (std::vector<std::string>{"compute 4", "produce 4", "local work", "idle 2",
                                                  "compute 5"}));
}

TEST(GroupFabric, CarriesMessagesWithGroupRanks) {
  RecordingFabric base;
  GroupFabric group(base, {5, 2, 7});
  base.inbox.push_back(Message{7, 1, 0, 0, {}});
  Mailbox& mailbox = group.mailbox();
  mailbox.send_message(0, Message{-1, 4, 0, 0, {}});
  EXPECT_EQ(mailbox.receive_message().from, 2);  // rank 7 is the group's third
  mailbox.accept_data(Combine::kAdd);
  mailbox.accept_update(0, [](float* words, const float* received) { words[2] += received[2]; });
  mailbox.flush_messages();
  EXPECT_EQ(base.words[2], 1);  // the update ran on the rank's own words
  EXPECT_EQ(base.calls, (std::vector<std::string>{"message to 5 kind 4", "message from 7",
                                                  "accept data", "accept update", "flush"}));
  EXPECT_EQ(&group.mailbox(), &mailbox);  // one view of the mailbox, however often asked
}

TEST(GroupFabric, RefusesAMessageFromOutsideTheGroup) {
  RecordingFabric base;
  GroupFabric group(base, {5, 2, 7});
  base.inbox.push_back(Message{4, 1, 0, 0, {}});
  EXPECT_THROW(group.mailbox().receive_message(), std::logic_error);
}

TEST(GroupFabric, HasNoMailboxWhereItsFabricHasNone) {
  RecordingFabric base(/*carries_messages=*/false);
  GroupFabric group(base, {2, 5});
  EXPECT_EQ(group.mailbox_if_any(), nullptr);
  try {
    group.mailbox();
    FAIL() << "a fabric without messages gave a mailbox";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no parameter-server messages"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(base.calls.empty());
}

// A group offers no optional interface of the fabric it wraps: its programs post receives ahead.
static_assert(!std::is_base_of_v<ReceiveAhead, GroupFabric>);

}  // namespace
}  // namespace scaleout::core
