// The simulated fabric: each rank is a SimGrid actor; a send is a mailbox message of that many
// bytes on the platform, a compute phase is an execution of that many FLOPs. No gradient exists.
// Messages (send_message) are a header that costs its latency and data the receiver takes.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <simgrid/s4u.hpp>
#include <unordered_map>
#include <vector>

#include "core/model/network_factors.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/topology.hpp"
#include "core/programs/fabric.hpp"
#include "core/programs/receive_ahead.hpp"
#include "sim/arrived_messages.hpp"

namespace scaleout::sim {

// Message headers on their way to one rank, by arrival time (equal times keep their sending
// order). A header costs its route's latency and nothing else, so it needs no network transfer.
struct MessageBox {
  std::multimap<double, core::Message> in_flight;
  simgrid::s4u::MutexPtr mutex;
  simgrid::s4u::ConditionVariablePtr posted;
};

// What all simulated ranks share: where each runs, and the bytes each pair of ranks exchanged.
struct SimWorld {
  const core::Topology* topology = nullptr;
  std::vector<simgrid::s4u::Host*> rank_host;
  // [rail][rank]: where a rank's transfers to another node leave on each rail (rail 0 is
  // rank_host). With one rail, empty or rank_host alone.
  std::vector<std::vector<simgrid::s4u::Host*>> rail_host;
  std::vector<int> rank_device;
  int bytes_per_element = 4;
  // Fast fidelity: a run of exchange steps with fixed peers travels as one message per direction
  // plus the latencies of the steps it stands for (exact when the steps' flows are alike, as in
  // every ring phase). Step fidelity sends every step as its own message.
  bool coalesce = true;
  double latency_factor = 1;
  // The IB model's factors by message size (SimGrid's smpi tables); nullopt for other models.
  // Fast fidelity then sizes a run's one message and its added latencies so that the run costs
  // what its steps would, each at its own size's factors.
  std::optional<core::NetworkFactors> sized;
  // bytes[step][(from << 32) | to]: bytes sent, for link loads.
  std::vector<std::unordered_map<std::uint64_t, double>> pair_bytes;
  std::uint64_t messages = 0;
  // By (sender, receiver): which of the pair's transfers have completed, by their place in the
  // pair's order (a receiver marks each as its receive completes; see SimFabric::release_done).
  // Kept only where a program lets go of its sends early (model-parallel runs).
  bool track_delivered = false;
  // Whether a rank may ask to be its neighbours' permanent receiver (receive_ahead_from).
  bool receivers_ahead = false;
  std::unordered_map<std::uint64_t, std::vector<char>> delivered;
  std::unordered_map<int, MessageBox> message_boxes;  // by receiving rank, made on first use
  // Message data on its way, by sending rank: receivers prefer the data of senders not sending
  // other data at the moment, as the fastest flowing connection is the one read first.
  std::unordered_map<int, int> uploading;
  // Transfers a rank keeps in flight itself before relay actors post the others (see SimFabric);
  // also a relay's batch. Of 32 to 512, 128 ran a 2,048-worker PS fastest.
  int direct_comms = 128;
  // Software costs charged on messages between nodes and on the sums of what they bring (every
  // strategy; zero: none).
  core::HostCosts host;
  // The wire protocol: a message between nodes above its eager limit waits a rendezvous round
  // trip before its data (the window is SimGrid's own network/TCP-gamma).
  core::Transport transport;
  // The device's overlap_slowdown: collectives slow the compute stream beside them.
  double overlap_slowdown = 0;
  // Told of every message's data once it arrived (for the trace); may be empty.
  std::function<void(int from, int to, double start_s, double end_s)> data_taken;
};

// Creates a mutex and a condition variable once, for whichever actor gets there first.
void make_sync(simgrid::s4u::MutexPtr& mutex, simgrid::s4u::ConditionVariablePtr& cv);

// The transport, its rank's device and mailbox in one, with SimGrid's receive-ahead hints.
class SimFabric : public core::Fabric,
                  public core::Device,
                  public core::Mailbox,
                  public core::ReceiveAhead {
 public:
  SimFabric(SimWorld& world, int rank) : world_(world), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(world_.rank_host.size()); }
  Handle post_send(int peer, core::Span span) override;
  Handle post_recv(int peer, core::Span span, core::Combine combine) override;
  void wait_all(const std::vector<Handle>& handles) override;
  std::size_t release_done(const std::vector<Handle>& handles, std::size_t first) override;
  std::optional<std::size_t> receive_ahead_from(int peer) override;
  void stop_receiving_ahead_from(int peer) override;
  // Gives back the mailboxes this rank received ahead from (call in the rank's actor, at its end).
  void stop_receiving_ahead();
  // With fast fidelity a run of two steps or more travels in aggregate (SimWorld::coalesce), by
  // `totals` where given, else by the steps' sums.
  void run_exchange(int to, int from, int count, const StepFn& step,
                    const StepTotals* totals) override;
  core::Device& device() override { return *this; }
  core::Mailbox* mailbox_if_any() override { return this; }
  void send_message(int peer, const core::Message& m) override;
  core::Message receive_message() override;
  // No data in a simulation; an addition costs the host's summation time.
  void accept_data(core::Combine combine) override;
  // No data: the update's modelled cost passes.
  void accept_update(double seconds, const UpdateFn&) override { idle(seconds); }
  void mark_step(int step) override { step_ = step; }
  void end_bucket() override;
  void compute(double flops) override;
  // The device's stream, in order, as arithmetic: see sim_fabric.cpp.
  ComputeTicket compute_async(double flops) override;
  double wait_compute(ComputeTicket ticket) override;
  double communicated_beside(double since) override;
  void idle(double seconds) override;
  // A codec's kernels take the device from the compute stream (see sim_fabric.cpp).
  void local_work(double seconds, const WordsFn& apply) override;
  double now() override;

 private:
  simgrid::s4u::Mailbox* outbox(int peer);
  simgrid::s4u::Mailbox* inbox(int peer);
  // `wire`: the size SimGrid moves (default `bytes`), where a coalesced run needs another.
  Handle send_bytes(int peer, double bytes, double wire = -1);
  Handle recv_bytes(int peer);
  double route_latency(int from, int to) const;
  // A sender's rendezvous before `messages` messages of `bytes` each to `peer` (sleeps).
  void rendezvous(int peer, double bytes, int messages = 1);
  double latency_factor(double bytes) const;
  double run_wire(int peer, double bytes, int count) const;
  double run_latency(int from, int to, double bytes, int count) const;
  void coalesced_run(int to, int from, int count, const StepTotals& totals);
  void count_bytes(int peer, double bytes);
  // A transfer this rank posts: started at once while few of its own are in flight, else by a
  // relay actor (sim_fabric_relays.cpp).
  struct Posting {
    Handle handle;
    int peer;
    bool send;
    double bytes;  // what SimGrid moves on rail 0
    void* data;    // a send's payload
  };
  void post(const Posting& p);
  simgrid::s4u::CommPtr start_transfer(const Posting& p);
  void relay(const Posting& p);
  void run_relay(std::vector<Posting> postings);
  void finish_transfer(Handle h);
  void await_relayed(Handle h);
  std::uint64_t pair_key(const Posting& p) const;
  MessageBox& message_box(int rank);
  void collect_arrived();
  void take_data(int from, double bytes);
  double message_bytes(const core::Message& m) const;
  bool crosses_nodes(int peer) const;
  void host_time(double seconds);
  // Rails 1.. of a transfer of `bytes` to `peer` on another node (empty: not striped): each rail
  // carries an equal share, rail 0 (the caller's own transfer) too.
  int stripes(int peer) const;
  std::vector<simgrid::s4u::CommPtr> start_rails(int from, int to, double share);

  SimWorld& world_;
  int rank_;
  std::vector<double> stream_done_at_;  // per ticket: when its compute ends
  int step_ = 0;
  std::vector<simgrid::s4u::CommPtr> comms_;
  std::unordered_map<Handle, double> sum_after_;  // receive -> host summation once it completed
  double last_data_bytes_ = 0;                    // of the last received message, between nodes
  // By handle: a striped send's transfers on rails 1.. (the sender waits for them too).
  std::vector<std::vector<simgrid::s4u::CommPtr>> rail_comms_;
  std::deque<void*> slots_;  // receive payload pointers; a deque keeps their addresses stable
  // SimGrid 3.32 scans the list of an actor's transfers in flight at every completion, so a
  // rank with thousands in flight (a PS server) costs the square of their number. Beyond
  // `world_.direct_comms` of its own, a rank's transfers are posted and waited for by relay
  // actors on its host, each holding a batch of at most as many: the same transfers, started at
  // the same simulated time, on shorter lists.
  int direct_in_flight_ = 0;
  struct RelayBatch {
    std::vector<Posting> postings;
    bool started = false;
  };
  std::shared_ptr<RelayBatch> open_batch_;
  std::vector<char> relayed_, relay_done_;  // by handle
  Handle awaited_ = -1;                     // the relayed transfer the rank waits for, if any
  // Relayed postings not yet started, by peer and direction: a later posting to the same pair
  // waits for them, so that the mailbox keeps their order.
  std::unordered_map<std::uint64_t, int> unstarted_;
  simgrid::s4u::MutexPtr relay_mutex_;
  simgrid::s4u::ConditionVariablePtr relay_done_cv_;
  std::unordered_map<int, simgrid::s4u::Mailbox*> outboxes_, inboxes_;
  std::vector<int> ahead_from_;  // peers whose mailbox has this rank as its permanent receiver
  // By handle: the peer, whether it is a send, and its place in the pair's order (mailboxes match
  // a pair's n-th send with its n-th receive).
  struct Transfer {
    int peer;
    bool send;
    std::uint64_t nth;
  };
  std::vector<Transfer> transfers_;
  std::unordered_map<std::uint64_t, std::uint64_t> posted_;  // by peer and direction
  void note_transfer(int peer, bool send);
  std::vector<char>& delivered(int from, int to);
  // Message headers that arrived, per sender, in the order sent; the receiver takes them one at a
  // time.
  ArrivedMessages arrived_;
};

}  // namespace scaleout::sim
