// Holding the fast fidelity to the summed steps: a coalesced run of fixed-peer steps (one message
// plus the steps' latencies) is meant to give the step-by-step simulation's answer. Debug builds
// check every fast simulation of a small plan against the same plan simulated step by step and
// say so in the result's warnings when they differ; the tests check the same function.
#pragma once

#include <cmath>

#include "core/plan/plan.hpp"
#include "core/results/result.hpp"
#include "sim/simulator.hpp"

namespace scaleout::sim {

#ifdef NDEBUG
constexpr bool kCheckFastFidelity = false;
#else
constexpr bool kCheckFastFidelity = true;
#endif

constexpr double kFidelityTolerance = 0.01;  // the share of the step the two may differ by
constexpr int kFidelityCheckMostRanks = 64;  // larger plans are not simulated twice

struct FidelityCheck {
  bool checked = false;  // the plan ran coalesced and is small enough
  double fast_s = 0, step_s = 0;
  bool agree() const {
    return !checked || std::abs(fast_s - step_s) <= kFidelityTolerance * step_s;
  }
};

// Simulates `plan` step by step when `fast` (its simulation with `options`) ran coalesced, has
// at most kFidelityCheckMostRanks ranks and wrote no trace, and compares the steps.
FidelityCheck check_fast_against_steps(const core::Plan& plan, const SimOptions& options,
                                       const core::RunResult& fast);

// In debug builds: `fast` with a warning when the check fails (release builds: `fast` as is).
core::RunResult with_fidelity_check(const core::Plan& plan, const SimOptions& options,
                                    core::RunResult fast);

}  // namespace scaleout::sim
