// The compute an executed rank runs for a compute phase, and the one calibrate measures: the same
// kernel, so a calibrated device rate predicts the executed compute.
#pragma once

namespace scaleout::exec {

// Real arithmetic: `flops` FLOP of multiply-adds over a cache-resident array (two FLOP each).
void run_flops(double flops);

// The kernel's rate on one core of this machine, in FLOP/s (about 0.1 s of timing).
double measure_kernel_rate();

}  // namespace scaleout::exec
