#include "sim/sim_fabric.hpp"

#include <algorithm>
#include <string>

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;

namespace {
char payload;  // messages carry no data: only their size matters
std::string mailbox_name(int from, int to) { return std::to_string(from) + ">" + std::to_string(to); }
}  // namespace

sg4::Mailbox* SimFabric::outbox(int peer) {
  auto& mb = outboxes_[peer];
  if (!mb) mb = sg4::Mailbox::by_name(mailbox_name(rank_, peer));
  return mb;
}

sg4::Mailbox* SimFabric::inbox(int peer) {
  auto& mb = inboxes_[peer];
  if (!mb) mb = sg4::Mailbox::by_name(mailbox_name(peer, rank_));
  return mb;
}

void SimFabric::count_bytes(int peer, double bytes) {
  if (static_cast<std::size_t>(step_) >= world_.pair_bytes.size()) world_.pair_bytes.resize(step_ + 1);
  world_.pair_bytes[step_][(static_cast<std::uint64_t>(rank_) << 32) | static_cast<std::uint32_t>(peer)] += bytes;
  ++world_.messages;
}

namespace {
constexpr double kMessageHeaderBytes = 64;
// Messages travel on two channels per receiver: small control messages and those carrying data.
// A receiver waits on both, so a request is never stuck behind a large transfer still under way
// (as with a server that handles its connections concurrently).
std::string message_box(int rank, bool data) { return (data ? "data>" : "ctl>") + std::to_string(rank); }
}  // namespace

void SimFabric::listen(sg4::ActorPtr actor) {
  for (bool data : {false, true}) sg4::Mailbox::by_name(message_box(rank_, data))->set_receiver(actor);
}

void SimFabric::send_message(int peer, const core::Message& m) {
  auto* payload = new core::Message(m);
  payload->from = rank_;
  // Control messages are latency only (their few bytes would add a flow to every link they cross).
  double bytes = m.data.count > 0 ? kMessageHeaderBytes + static_cast<double>(m.data.count) * world_.bytes_per_element : 0;
  count_bytes(peer, bytes);
  sg4::Mailbox::by_name(message_box(peer, m.data.count > 0))->put_init(payload, static_cast<std::uint64_t>(bytes))->detach();
}

core::Message SimFabric::receive_message() {
  for (int c = 0; c < 2; ++c)
    if (!channel_get_[c]) channel_get_[c] = sg4::Mailbox::by_name(message_box(rank_, c == 1))->get_async(&channel_slot_[c]);
  ssize_t i = sg4::Comm::wait_any({channel_get_[0], channel_get_[1]});
  auto* payload = static_cast<core::Message*>(channel_slot_[i]);
  channel_get_[i] = nullptr;
  core::Message m = *payload;
  delete payload;
  return m;
}

core::Fabric::Handle SimFabric::send_bytes(int peer, double bytes) {
  count_bytes(peer, bytes);
  comms_.push_back(outbox(peer)->put_async(&payload, static_cast<std::uint64_t>(bytes)));
  return static_cast<Handle>(comms_.size() - 1);
}

core::Fabric::Handle SimFabric::recv_bytes(int peer) {
  slots_.push_back(nullptr);
  comms_.push_back(inbox(peer)->get_async(&slots_.back()));
  return static_cast<Handle>(comms_.size() - 1);
}

core::Fabric::Handle SimFabric::post_send(int peer, core::Span span) {
  return send_bytes(peer, static_cast<double>(span.count) * world_.bytes_per_element);
}

core::Fabric::Handle SimFabric::post_recv(int peer, core::Span, core::Combine) {
  return recv_bytes(peer);
}

void SimFabric::wait_all(const std::vector<Handle>& handles) {
  for (Handle h : handles) {
    if (!comms_[h]) continue;  // already waited for
    comms_[h]->wait();
    comms_[h] = nullptr;  // let SimGrid free the finished transfer now, not at the bucket's end
  }
}

double SimFabric::route_latency(int from, int to) const {
  return world_.topology->device_path(world_.rank_device[from], world_.rank_device[to]).latency;
}

void SimFabric::exchange_steps(int to, int from, int count, const StepFn& step) {
  if (!world_.coalesce || count < 2) {
    core::Fabric::exchange_steps(to, from, count, step);
    return;
  }
  double send = 0, recv = 0;
  for (int i = 0; i < count; ++i) {
    core::ExchangeStep s = step(i);
    send += static_cast<double>(s.send.count) * world_.bytes_per_element;
    recv += static_cast<double>(s.recv.count) * world_.bytes_per_element;
  }
  std::vector<Handle> handles;
  if (send > 0) handles.push_back(send_bytes(to, send));
  if (recv > 0) handles.push_back(recv_bytes(from));
  wait_all(handles);
  // Each step the run stands for would have paid the slower of its two routes' latency once.
  double latency = std::max(route_latency(rank_, to), route_latency(from, rank_)) * world_.latency_factor;
  sg4::this_actor::sleep_for(latency * (count - 1));
}

void SimFabric::compute(double flops) { sg4::this_actor::execute(flops); }

void SimFabric::idle(double seconds) { sg4::this_actor::sleep_for(seconds); }

double SimFabric::now() { return sg4::Engine::get_clock(); }

void SimFabric::reset() {
  comms_.clear();
  slots_.clear();
}

}  // namespace scaleout::sim
