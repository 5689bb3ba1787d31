// A model-parallel plan's pipeline schedule as the closed form times it, as a Chrome trace: one
// track per stage, a span per forward and backward of each micro-batch (and chunk), the bubble
// the gaps between them. `simulate --engine analytic --trace` writes it; the GUI shows it.
#pragma once

#include "core/formats/trace.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::sim {

// REQUIRES: a validated plan with `parallelism:` that fits its devices' memory.
core::Trace pipeline_trace(const core::Plan& plan);

// What the trace's process is called: "closed form: 1f1b, 4 stages, 16 micro-batches".
std::string pipeline_trace_name(const core::Plan& plan);

}  // namespace scaleout::sim
