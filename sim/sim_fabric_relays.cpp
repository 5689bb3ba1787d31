// Transfers posted for a rank by relay actors once it has many in flight (see SimFabric).
#include <string>

#include "sim/sim_fabric.hpp"

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;

std::uint64_t SimFabric::pair_key(const Posting& p) const {
  return (static_cast<std::uint64_t>(p.peer) << 1) | (p.send ? 1U : 0U);
}

sg4::CommPtr SimFabric::start_transfer(const Posting& p) {
  if (p.send) return outbox(p.peer)->put_async(p.data, static_cast<std::uint64_t>(p.bytes));
  return inbox(p.peer)->get_async(&slots_[p.handle]);
}

void SimFabric::post(const Posting& p) {
  // A relayed posting to the same peer not started yet goes first: mailboxes match in order.
  while (true) {
    auto it = unstarted_.find(pair_key(p));
    if (it == unstarted_.end() || it->second == 0) break;
    sg4::this_actor::yield();
  }
  if (direct_in_flight_ < world_.direct_comms) {
    comms_[p.handle] = start_transfer(p);
    ++direct_in_flight_;
    return;
  }
  relay(p);
}

// Postings join the open batch until it is full or its relay has started. The relay yields once
// before it starts, so the rank, which goes on without a simulation call until it waits or opens
// the next batch, fills the batch first.
void SimFabric::relay(const Posting& p) {
  make_sync(relay_mutex_, relay_done_cv_);
  relayed_.resize(comms_.size());
  relay_done_.resize(comms_.size());
  relayed_[p.handle] = 1;
  ++unstarted_[pair_key(p)];
  if (!open_batch_ || open_batch_->started ||
      open_batch_->postings.size() >= static_cast<std::size_t>(world_.direct_comms)) {
    open_batch_ = std::make_shared<RelayBatch>();
    sg4::Actor::create("relay" + std::to_string(rank_), world_.rank_host[rank_],
                       [this, batch = open_batch_] {
                         sg4::this_actor::yield();
                         batch->started = true;
                         run_relay(std::move(batch->postings));
                       });
  }
  open_batch_->postings.push_back(p);
}

// Starts the batch's transfers in order, then waits for each and tells the rank.
void SimFabric::run_relay(std::vector<Posting> postings) {
  for (const Posting& p : postings) {
    comms_[p.handle] = start_transfer(p);
    --unstarted_[pair_key(p)];
  }
  for (const Posting& p : postings) {
    finish_transfer(p.handle);
    relay_done_[p.handle] = 1;
    if (awaited_ == p.handle) relay_done_cv_->notify_all();  // wake the rank only for its own
  }
}

// Actors take turns (no two run at once), so the flag can be read before locking: most relayed
// transfers are done by the time the rank looks.
void SimFabric::await_relayed(Handle h) {
  if (relay_done_[h]) return;
  std::unique_lock<sg4::Mutex> lock(*relay_mutex_);
  awaited_ = h;
  while (!relay_done_[h]) relay_done_cv_->wait(lock);
  awaited_ = -1;
}

}  // namespace scaleout::sim
