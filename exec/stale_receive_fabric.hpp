// A fault for tests (Faults::stale_receive_rank): a fabric whose first receive of the second step
// lands in scratch elements past the program's buffer, so that the slot the program reads keeps
// the first step's data, as a receive that never landed would leave it; the run's checks must
// count it. Everything else passes through to the wrapped fabric.
#pragma once

#include <cstdint>
#include <vector>

#include "core/programs/fabric.hpp"

namespace scaleout::exec {

class StaleReceiveFabric : public core::Fabric {
 public:
  // `scratch_begin`: the first element past the program's buffer; the buffer holds as many
  // elements again after it.
  StaleReceiveFabric(core::Fabric& inner, std::int64_t scratch_begin)
      : inner_(inner), scratch_begin_(scratch_begin) {}

  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  Handle post_send(int peer, core::Span span) override { return inner_.post_send(peer, span); }
  Handle post_recv(int peer, core::Span span, core::Combine combine) override;
  void wait_all(const std::vector<Handle>& handles) override { inner_.wait_all(handles); }
  void run_exchange(int to, int from, int count, const StepFn& step,
                    const StepTotals* totals) override {
    inner_.run_exchange(to, from, count, step, totals);
  }
  void mark_step(int step) override;
  void end_bucket() override { inner_.end_bucket(); }
  core::Device& device() override { return inner_.device(); }
  core::Mailbox* mailbox_if_any() override { return inner_.mailbox_if_any(); }

 private:
  core::Fabric& inner_;
  std::int64_t scratch_begin_;
  bool armed_ = false;
};

}  // namespace scaleout::exec
