// How much work a simulation is, before it starts: a plan whose simulation would take minutes or
// hours without a word (a 1-byte fusion buffer, an 8 KiB tree chunk, a billion steps) is refused
// naming the knob that makes it so, unless the caller raised the limit.
#pragma once

#include <string>

#include "core/plan/plan.hpp"
#include "sim/simulator.hpp"

namespace scaleout::sim {

struct WorkEstimate {
  double messages = 0;  // point-to-point messages the simulation would send, all ranks
  double per_step = 0;  // buckets (or tree chunks) one step exchanges
  std::string knob;     // the field that makes it large ("training.fusion_buffer", ...)
  int line = 0;         // its line in the plan file (0: not known)
  std::string advice;   // what to change
};

// Messages the ranks send, from the plan's numbers only (no allocation per bucket): within 20% of
// the count for every strategy and fidelity on the quickstart (tests/sim/sim_progress_test.cpp).
WorkEstimate estimate_work(const core::Plan& plan, Fidelity fidelity);

// Throws core::InputError naming the knob when estimate_work(...).messages > max_messages;
// returns the estimate otherwise.
WorkEstimate check_work(const core::Plan& plan, Fidelity fidelity, double max_messages);

}  // namespace scaleout::sim
