#include "exec/compute_kernel.hpp"

#include <chrono>
#include <vector>

namespace scaleout::exec {

namespace {
volatile float sink;  // keeps the loop from being optimised away
}

void run_flops(double flops) {
  static thread_local std::vector<float> work(4096, 1.0f);
  long iterations = static_cast<long>(flops / 2 / work.size());
  float a = 0.999f, b = 0.001f;
  for (long it = 0; it < iterations; ++it)
    for (auto& x : work) x = x * a + b;
  sink = sink + work[static_cast<std::size_t>(iterations) % work.size()];
}

double measure_kernel_rate() {
  const double flops = 2.0 * 20000 * 4096;
  auto t0 = std::chrono::steady_clock::now();
  run_flops(flops);
  return flops / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace scaleout::exec
