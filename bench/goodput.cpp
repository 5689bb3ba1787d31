// What failure rates cost a prediction: the closed form on Llama 3 405B's 16,384-GPU plan with
// and without `reliability:` (200 sampled runs), side by side, and a sampled run's time and peak
// memory as the run grows from a month to ten years (its memory must not grow with the run).
#include "core/reliability/goodput.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>

#include "analytic/analytic.hpp"
#include "core/plan/plan_loader.hpp"

namespace {

double seconds_of(auto&& work, int repeats) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / repeats;
}

long peak_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

int main() {
  using namespace scaleout;
  core::Plan plan = core::load_plan(std::string(SCALEOUT_SOURCE_DIR) +
                                    "/experiments/llama3-goodput/llama3-405b-rsc1.yaml");
  core::Plan steady = plan;
  steady.reliability.reset();
  steady.resilience = {};
  const int repeats = 20;
  double with = seconds_of([&] { sim::predict_analytic(plan); }, repeats);
  double without = seconds_of([&] { sim::predict_analytic(steady); }, repeats);
  std::printf("Llama 3 405B on 16,384 GPUs, closed form, mean of %d predictions:\n", repeats);
  std::printf("  with reliability (%d sampled runs) %8.2f ms\n", plan.reliability->samples,
              with * 1e3);
  std::printf("  without                          %8.2f ms (%.1fx)\n", without * 1e3,
              with / without);

  // One sampled run: an hour of work between checkpoints, a failure every 2 hours.
  std::printf("one sampled run, hourly checkpoints, a failure every 2 h:\n");
  for (double days : {30.0, 365.0, 3650.0}) {
    core::GoodputInputs in{days * 86400, 3600, 10, 10, 600, 7200};
    double t = seconds_of([&] { core::sampled_wall_time(in, 1); }, 5);
    std::printf("  %6.0f days of work %8.2f ms, peak memory %ld KiB\n", days, t * 1e3, peak_kib());
  }
  return 0;
}
