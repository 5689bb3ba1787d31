// A group view of a fabric: a subset of the ranks seen as ranks 0..k-1, as ncclCommSplit makes a
// communicator of them, so that today's strategy programs run unchanged on a tensor group, a
// data group or a pair of pipeline stages. Transfers, compute and the clock go to the underlying
// fabric with the group's ranks translated; messages (the parameter server's) are not offered.
#pragma once

#include <vector>

#include "core/fabric.hpp"

namespace scaleout::core {

class GroupFabric : public Fabric {
 public:
  // `members`: the underlying ranks of the group, in group order. REQUIRES: base.rank() is one
  // of them; `base` outlives the view.
  GroupFabric(Fabric& base, std::vector<int> members);

  int rank() const override { return position_; }
  int size() const override { return static_cast<int>(members_.size()); }
  Handle post_send(int peer, Span span) override;
  Handle post_recv(int peer, Span span, Combine combine) override;
  void wait_all(const std::vector<Handle>& handles) override { base_.wait_all(handles); }
  CodecBackend* device_codecs() override { return base_.device_codecs(); }
  std::size_t release_done(const std::vector<Handle>& handles, std::size_t first) override {
    return base_.release_done(handles, first);
  }
  void exchange_steps(int to, int from, int count, const StepFn& step) override;
  void exchange_run(int to, int from, int count, const StepFn& step,
                    const StepTotals& totals) override;
  // Throw std::logic_error: groups run collectives only.
  void send_message(int peer, const Message& m) override;
  Message receive_message() override;
  void accept_data(Combine combine) override;
  void mark_step(int step) override { base_.mark_step(step); }
  void end_bucket() override { base_.end_bucket(); }
  void produce_gradient(Span span) override { base_.produce_gradient(span); }
  void flush_messages() override { base_.flush_messages(); }
  void idle(double seconds) override { base_.idle(seconds); }
  void local_work(double seconds, const WordsFn& apply) override {
    base_.local_work(seconds, apply);
  }
  void compute(double flops) override { base_.compute(flops); }
  ComputeTicket compute_async(double flops) override { return base_.compute_async(flops); }
  double wait_compute(ComputeTicket ticket) override { return base_.wait_compute(ticket); }
  double now() override { return base_.now(); }

  // The underlying rank of group rank `peer`.
  int member(int peer) const { return members_.at(peer); }

 private:
  Fabric& base_;
  std::vector<int> members_;
  int position_ = -1;
};

}  // namespace scaleout::core
