// Compute slowed by the collectives it overlaps. An overlapped collective's kernels take
// multiprocessors and memory bandwidth from the compute beside it, which then runs (1 + s) times as
// long while they last (s: DeviceSpec::overlap_slowdown). Lee et al., "Characterizing
// Compute-Communication Overlap in GPU-Accelerated Distributed Deep Learning" (arXiv:2507.03114,
// 2025) measured 18.9 % on average, at most 40 %, on A100, H100, MI250 and MI210 GPUs. Every engine
// applies this one rule: the closed form through these functions, SimGrid's device stream by the
// same arithmetic (SimFabric::communicated_beside).
#pragma once

namespace scaleout::core {

// Seconds added to `compute` seconds of work when `communication` seconds of collectives start
// with it: the compute runs at 1 / (1 + s) of its rate for as long as both run.
double overlap_penalty(double compute, double communication, double slowdown);

// When compute and the collectives started with it have both ended: the slowed compute, or the
// communication if it lasts longer.
double span_beside(double compute, double communication, double slowdown);

}  // namespace scaleout::core
