#include "sim/sim_fabric.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/model/host_costs.hpp"
#include "core/model/overlap_slowdown.hpp"
#include "core/model/transport.hpp"
#include "sim/sim_progress.hpp"

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;

namespace {
char payload;  // messages carry no data: only their size matters
std::string mailbox_name(int from, int to) {
  return std::to_string(from) + ">" + std::to_string(to);
}
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
  if (static_cast<std::size_t>(step_) >= world_.pair_bytes.size())
    world_.pair_bytes.resize(step_ + 1);
  world_.pair_bytes[step_][(static_cast<std::uint64_t>(rank_) << 32) |
                           static_cast<std::uint32_t>(peer)] += bytes;
  ++world_.messages;
  note_message_sent(now());
}

// A message is a header, which arrives after its route's latency (its few bytes would add a flow
// to every link it crosses), and data, which moves when the receiver takes the message, as a
// rendezvous transfer does (the executed fabric's Gloo transfers are rendezvous too).
namespace {
constexpr double kMessageHeaderBytes = 64;

}  // namespace

// Creating them yields to other actors, which may get here meanwhile: both are published at once.
void make_sync(sg4::MutexPtr& mutex, sg4::ConditionVariablePtr& cv) {
  if (cv) return;
  auto m = sg4::Mutex::create();
  auto c = sg4::ConditionVariable::create();
  if (cv) return;
  mutex = m;
  cv = c;
}

MessageBox& SimFabric::message_box(int rank) {
  MessageBox& box = world_.message_boxes[rank];
  make_sync(box.mutex, box.posted);
  return box;
}

double SimFabric::message_bytes(const core::Message& m) const {
  return m.data.count > 0
             ? kMessageHeaderBytes + static_cast<double>(m.data.count) * world_.bytes_per_element
             : 0;
}

bool SimFabric::crosses_nodes(int peer) const {
  const core::Topology& t = *world_.topology;
  return t.node_of_device(world_.rank_device[rank_]) != t.node_of_device(world_.rank_device[peer]);
}

// The host is busy (serializing, copying, adding): the rank waits, the network goes on.
void SimFabric::host_time(double seconds) {
  if (seconds > 0) sg4::this_actor::sleep_for(seconds);
}

void SimFabric::accept_data(core::Combine combine) {
  if (combine == core::Combine::kAdd) host_time(core::host_sum_time(world_.host, last_data_bytes_));
}

void SimFabric::send_message(int peer, const core::Message& m) {
  if (world_.host.any() && crosses_nodes(peer))
    host_time(core::host_send_time(world_.host, message_bytes(m)));
  rendezvous(peer, message_bytes(m));  // a header alone (0 bytes) never waits
  count_bytes(peer, message_bytes(m));
  MessageBox& box = message_box(peer);
  core::Message header = m;
  header.from = rank_;
  box.in_flight.emplace(now() + route_latency(rank_, peer) * latency_factor(message_bytes(m)),
                        header);
  box.posted->notify_all();
}

// Moves the headers that have arrived into arrived_; waits for the first when none has.
void SimFabric::collect_arrived() {
  MessageBox& box = message_box(rank_);
  std::unique_lock<sg4::Mutex> lock(*box.mutex);
  while (true) {
    auto it = box.in_flight.begin();
    // A timer may wake the receiver a rounding error before the arrival it was set for.
    for (; it != box.in_flight.end() && it->first <= now() + 1e-12; ++it)
      arrived_.push(it->first, it->second);
    box.in_flight.erase(box.in_flight.begin(), it);
    if (!arrived_.empty()) return;
    if (box.in_flight.empty()) {
      box.posted->wait(lock);
    } else {
      box.posted->wait_until(lock, box.in_flight.begin()->first);
    }
  }
}

// The data moves now, from the sender's host to this one (the sender need not take part: it
// handed the data over when it sent the message).
void SimFabric::take_data(int from, double bytes) {
  double start = now();
  ++world_.uploading[from];
  int rails = stripes(from);
  auto comms = start_rails(from, rank_, bytes / rails);
  sg4::Comm::sendto(world_.rank_host[from], world_.rank_host[rank_],
                    static_cast<std::uint64_t>(bytes / rails));
  sg4::Comm::wait_all(comms);
  --world_.uploading[from];
  if (world_.data_taken) world_.data_taken(from, rank_, start, now());
}

core::Message SimFabric::receive_message() {
  collect_arrived();
  // Messages without data come first. Of those carrying data, the one that arrived first among
  // senders not sending other data now; when all are, the first to arrive. (First come, first
  // served alone would make servers that receive from the same workers all pick the same worker
  // at the same moment, sharing its link, in lockstep for ever; on a real network the connection
  // of an idle sender is the one whose data is there first.)
  int from = arrived_.pick(world_.uploading);
  core::Message m = arrived_.pop(from);
  if (m.data.count > 0) take_data(from, message_bytes(m));
  last_data_bytes_ = world_.host.any() && crosses_nodes(from) ? message_bytes(m) : 0;
  return m;
}

// Several NICs per node: a transfer between nodes is cut into equal shares, one per rail, as
// NCCL spreads its channels over a node's NICs. Rails 1.. run between the ranks' stand-in hosts.
int SimFabric::stripes(int peer) const {
  if (world_.rail_host.size() < 2) return 1;
  const core::Topology& t = *world_.topology;
  bool across =
      t.node_of_device(world_.rank_device[rank_]) != t.node_of_device(world_.rank_device[peer]);
  return across ? static_cast<int>(world_.rail_host.size()) : 1;
}

std::vector<sg4::CommPtr> SimFabric::start_rails(int from, int to, double share) {
  std::vector<sg4::CommPtr> comms;
  int rails = stripes(from == rank_ ? to : from);
  for (int r = 1; r < rails; ++r)
    comms.push_back(sg4::Comm::sendto_async(world_.rail_host[r][from], world_.rail_host[r][to],
                                            static_cast<std::uint64_t>(share)));
  return comms;
}

// A striped send's receiver waits for rails 1.. too: it finds their transfers in the payload.
core::Fabric::Handle SimFabric::send_bytes(int peer, double bytes, double wire) {
  count_bytes(peer, bytes);
  if (wire >= 0) bytes = wire;
  int rails = stripes(peer);
  void* data = &payload;
  std::vector<sg4::CommPtr> rails_on;
  if (rails > 1) {
    rails_on = start_rails(rank_, peer, bytes / rails);
    data = new std::vector<sg4::CommPtr>(rails_on);
  }
  auto h = static_cast<Handle>(comms_.size());
  comms_.emplace_back();
  rail_comms_.resize(comms_.size());
  rail_comms_.back() = std::move(rails_on);
  slots_.push_back(nullptr);
  note_transfer(peer, true);
  post({h, peer, true, bytes / rails, data});
  return h;
}

core::Fabric::Handle SimFabric::recv_bytes(int peer) {
  auto h = static_cast<Handle>(comms_.size());
  slots_.push_back(nullptr);
  comms_.emplace_back();
  rail_comms_.resize(comms_.size());
  note_transfer(peer, false);
  post({h, peer, false, 0, nullptr});
  return h;
}

core::Fabric::Handle SimFabric::post_send(int peer, core::Span span) {
  double bytes = static_cast<double>(span.count) * world_.bytes_per_element;
  if (world_.host.any() && crosses_nodes(peer)) host_time(core::host_send_time(world_.host, bytes));
  rendezvous(peer, bytes);
  return send_bytes(peer, bytes);
}

core::Fabric::Handle SimFabric::post_recv(int peer, core::Span span, core::Combine combine) {
  Handle h = recv_bytes(peer);
  if (combine == core::Combine::kAdd && world_.host.sum_rate > 0 && crosses_nodes(peer))
    sum_after_[h] = core::host_sum_time(world_.host,
                                        static_cast<double>(span.count) * world_.bytes_per_element);
  return h;
}

void SimFabric::wait_all(const std::vector<Handle>& handles) {
  for (Handle h : handles) {
    if (static_cast<std::size_t>(h) < relayed_.size() && relayed_[h]) {
      await_relayed(h);
    } else {
      if (!comms_[h]) continue;  // already waited for
      finish_transfer(h);
      --direct_in_flight_;
    }
    if (auto it = sum_after_.find(h); it != sum_after_.end()) {
      host_time(it->second);
      sum_after_.erase(it);
    }
  }
}

// The transfers `peer` sent before now wait in the mailbox, not started (a receiver set now does
// not start them): their receives are posted at once, as a window of receives would have been.
std::optional<std::size_t> SimFabric::receive_ahead_from(int peer) {
  if (!world_.receivers_ahead) return std::nullopt;
  sg4::Mailbox* mailbox = inbox(peer);
  std::size_t sent = mailbox->size();
  if (std::find(ahead_from_.begin(), ahead_from_.end(), peer) == ahead_from_.end()) {
    mailbox->set_receiver(sg4::Actor::self());
    ahead_from_.push_back(peer);
  }
  return sent;
}

void SimFabric::stop_receiving_ahead_from(int peer) {
  auto it = std::find(ahead_from_.begin(), ahead_from_.end(), peer);
  if (it == ahead_from_.end()) return;
  inbox(peer)->set_receiver(nullptr);
  ahead_from_.erase(it);
}

void SimFabric::stop_receiving_ahead() {
  for (int peer : ahead_from_) inbox(peer)->set_receiver(nullptr);
  ahead_from_.clear();
}

void SimFabric::note_transfer(int peer, bool send) {
  if (!world_.track_delivered) return;  // only model-parallel runs read them
  std::uint64_t& n = posted_[(static_cast<std::uint64_t>(peer) << 1) | (send ? 1U : 0U)];
  transfers_.push_back({peer, send, n++});
}

std::vector<char>& SimFabric::delivered(int from, int to) {
  return world_
      .delivered[(static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint32_t>(to)];
}

// SimGrid 3.32 keeps a transfer among its sender's pending ones until the sender waits for it, and
// scans them at every completion: a pipeline stage that waits for its sends only at the end of
// the iteration (hundreds of them) pays for each completion in proportion. A send its receiver has
// already taken is waited for here at once (it costs no simulated time), leaving the list. Taken
// means that the receive matching it completed, on every rail (the pair's n-th send meets its n-th
// receive); relayed transfers are left to wait_all.
std::size_t SimFabric::release_done(const std::vector<Handle>& handles, std::size_t first) {
  if (!world_.track_delivered) return first;
  for (; first < handles.size(); ++first) {
    Handle h = handles[first];
    bool relayed = static_cast<std::size_t>(h) < relayed_.size() && relayed_[h];
    if (!relayed && !comms_[h]) continue;  // already waited for
    const Transfer& t = transfers_[h];
    if (relayed || !t.send) break;
    const std::vector<char>& done = delivered(rank_, t.peer);
    if (t.nth >= done.size() || !done[t.nth]) break;
    finish_transfer(h);
    --direct_in_flight_;
  }
  return first;
}

// Waits for a transfer and the rails it was striped over, then lets SimGrid free it (now, not at
// the bucket's end).
void SimFabric::finish_transfer(Handle h) {
  // Copied: the vectors may grow while this waits.
  const Transfer transfer = world_.track_delivered ? transfers_[h] : Transfer{};
  sg4::CommPtr comm = std::move(comms_[h]);
  comms_[h] = nullptr;
  comm->wait();
  comm = nullptr;
  // Moved out: other actors of this rank may post (and grow these vectors) while this one waits.
  std::vector<sg4::CommPtr> rails = std::move(rail_comms_[h]);
  rail_comms_[h].clear();
  if (!rails.empty()) sg4::Comm::wait_all(rails);
  void* got = slots_[h];
  slots_[h] = nullptr;
  if (got && got != &payload) {  // a striped message's rails 1..
    auto* striped = static_cast<std::vector<sg4::CommPtr>*>(got);
    sg4::Comm::wait_all(*striped);
    delete striped;
  }
  if (world_.track_delivered && !transfer.send) {  // the matching send is done, every rail of it
    std::vector<char>& done = delivered(transfer.peer, rank_);
    if (done.size() <= transfer.nth) done.resize(transfer.nth + 1, 0);
    done[transfer.nth] = 1;
  }
}

// MPI's rendezvous: the request to send goes out and the clear to send comes back before the
// data moves, one round trip of the route for each message above the eager limit.
void SimFabric::rendezvous(int peer, double bytes, int messages) {
  if (!world_.transport.rendezvous(bytes) || !crosses_nodes(peer)) return;
  double latency = route_latency(rank_, peer) * latency_factor(bytes);
  sg4::this_actor::sleep_for(messages * core::rendezvous_seconds(world_.transport, bytes, latency));
}

double SimFabric::route_latency(int from, int to) const {
  return world_.topology->device_path(world_.rank_device[from], world_.rank_device[to]).latency;
}

void SimFabric::run_exchange(int to, int from, int count, const StepFn& step,
                             const StepTotals* totals) {
  if (!world_.coalesce || count < 2) {
    core::Fabric::run_exchange(to, from, count, step, nullptr);  // step by step
    return;
  }
  if (totals) {
    coalesced_run(to, from, count, *totals);
    return;
  }
  StepTotals sums;
  for (int i = 0; i < count; ++i) {
    core::ExchangeStep s = step(i);
    sums.send += s.send.count;
    sums.recv += s.recv.count;
    if (s.combine == core::Combine::kAdd) sums.added += s.recv.count;
  }
  coalesced_run(to, from, count, sums);
}

// The run as one message per direction, then the latencies of the steps it stands for.
void SimFabric::coalesced_run(int to, int from, int count, const StepTotals& totals) {
  double send = static_cast<double>(totals.send) * world_.bytes_per_element;
  double recv = static_cast<double>(totals.recv) * world_.bytes_per_element;
  // Host costs between nodes, as the steps would pay them one after another: each step's message
  // its overhead and the copy of its bytes before it leaves, each summed chunk its addition.
  if (world_.host.any() && send > 0 && crosses_nodes(to))
    host_time((count - 1) * world_.host.message_overhead + core::host_send_time(world_.host, send));
  if (send > 0) rendezvous(to, send / count, count);
  std::vector<Handle> handles;
  if (send > 0) handles.push_back(send_bytes(to, send, run_wire(to, send, count)));
  if (recv > 0) handles.push_back(recv_bytes(from));
  wait_all(handles);
  if (totals.added > 0 && crosses_nodes(from))
    host_time(core::host_sum_time(world_.host,
                                  static_cast<double>(totals.added) * world_.bytes_per_element));
  // Each step the run stands for would have paid the slower of its two routes' latency once.
  if (!world_.sized) {
    double latency =
        std::max(route_latency(rank_, to), route_latency(from, rank_)) * world_.latency_factor;
    sg4::this_actor::sleep_for(latency * (count - 1));
    return;
  }
  sg4::this_actor::sleep_for(
      std::max(run_latency(rank_, to, send, count), run_latency(from, rank_, recv, count)));
}

double SimFabric::latency_factor(double bytes) const {
  return world_.sized ? world_.sized->latency.at(bytes) : world_.latency_factor;
}

// Factors by size: the run's one message is resized so that SimGrid's factor for its size moves
// it at the rate each step's own message would get (each rail's share sized on its own).
double SimFabric::run_wire(int peer, double bytes, int count) const {
  if (!world_.sized || bytes <= 0) return bytes;
  double rails = stripes(peer);
  const core::SizeSteps& bw = world_.sized->bandwidth;
  return bytes * bw.at(bytes / rails) / bw.at(bytes / count / rails);
}

// What the run's steps would have paid in latency, less what its one message paid.
double SimFabric::run_latency(int from, int to, double bytes, int count) const {
  if (bytes <= 0) return 0;
  int peer = from == rank_ ? to : from;
  double rails = stripes(peer);
  double wire = run_wire(peer, bytes, count);
  double steps = count * latency_factor(bytes / count / rails) - latency_factor(wire / rails);
  return std::max(0.0, route_latency(from, to) * steps);
}

void SimFabric::compute(double flops) {
  // The stream's arithmetic (compute_async) assumes it has the host to itself.
  if (!stream_done_at_.empty() && stream_done_at_.back() > now())
    throw std::logic_error("blocking compute while the rank's compute stream is busy");
  sg4::this_actor::sleep_for(flops / world_.rank_host[rank_]->get_speed());
}

void SimFabric::idle(double seconds) { sg4::this_actor::sleep_for(seconds); }

double SimFabric::now() { return sg4::Engine::get_clock(); }

void SimFabric::end_bucket() {
  comms_.clear();
  relayed_.clear();
  relay_done_.clear();
  rail_comms_.clear();
  sum_after_.clear();
  slots_.clear();
  transfers_.clear();
}

// The rank's stream is the only compute on its device's host (ranks with overlap call no
// blocking `compute`), one job at a time at the host's constant speed: a job queued at t ends at
// max(t, end of the job before) + flops / speed, the clock an actor running the jobs in turn
// would reach. Computed here, it needs no second actor per rank: at 16,384 ranks half the
// contexts SimGrid switches among, and no semaphores.
core::Device::ComputeTicket SimFabric::compute_async(double flops) {
  double start = stream_done_at_.empty() ? now() : std::max(now(), stream_done_at_.back());
  stream_done_at_.push_back(start + flops / world_.rank_host[rank_]->get_speed());
  return static_cast<ComputeTicket>(stream_done_at_.size() - 1);
}

double SimFabric::wait_compute(ComputeTicket ticket) {
  double end = stream_done_at_.at(static_cast<std::size_t>(ticket));
  if (end > now()) sg4::this_actor::sleep_until(end);
  return end;
}

// The stream runs its jobs back to back from `since` on (the training programs queue them so: at
// `since`, or earlier), so its work left at `since` is its last job's end less `since`, and the
// slowed share of it is core::overlap_penalty's: every job not yet finished at `since` ends that
// much later, the closed form's arithmetic exactly.
double SimFabric::communicated_beside(double since) {
  if (world_.overlap_slowdown <= 0 || stream_done_at_.empty()) return 0;
  double work = stream_done_at_.back() - since;
  double extra = core::overlap_penalty(work, now() - since, world_.overlap_slowdown);
  for (auto end = stream_done_at_.rbegin(); end != stream_done_at_.rend() && *end > since; ++end)
    *end += extra;
  return extra;
}

// Local work (a compressor's encoding, an owner's sums, the decoding) runs on the rank's device,
// which does one thing at a time: it takes the device from the compute stream, so every job
// queued there and not yet finished ends `seconds` later (jobs end in order: only the last ones
// move). Beside backward, a compressed exchange thus slows the step by its codec's time, as
// DDP's communication hooks do when their kernels share the GPU with backward's.
void SimFabric::local_work(double seconds, const WordsFn&) {
  double t = now();
  for (auto end = stream_done_at_.rbegin(); end != stream_done_at_.rend() && *end > t; ++end)
    *end += seconds;
  idle(seconds);
}

}  // namespace scaleout::sim
