// Is a half-precision exchange as fast as fp32 per element? Side by side in one run: the CPU sum
// kernel's rate per element type (one core, in cache and beyond), then a 4-rank ring on loopback
// moving the same elements in fp32, fp16 and bf16 (median step of N; ratio to fp32). Half
// precision moves half the bytes, so on a network-bound exchange it should be faster; on loopback
// the sums' speed decides.
//
//   build/bench/bench_precision_exchange [steps]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/plan/plan_loader.hpp"
#include "exec/gradient_buffer.hpp"
#include "exec/local_run.hpp"

using namespace scaleout;

namespace {

// Elements per second that add_elements sums, the best of five passes over `n` elements.
double sum_rate(exec::ElementType type, std::int64_t n) {
  exec::GradientBuffer dst(type, n), in(type, n);
  for (std::int64_t i = 0; i < n; ++i) {
    dst.set(i, 0.25f * static_cast<float>(i % 97));
    in.set(i, 0.5f * static_cast<float>(i % 89));
  }
  double best = 1e30;
  for (int pass = 0; pass < 5; ++pass) {
    auto t0 = std::chrono::steady_clock::now();
    exec::add_elements(type, dst.at(0), in.at(0), n);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return static_cast<double>(n) / best;
}

double median_step(const core::RunResult& r) {
  std::vector<double> t;
  for (const auto& s : r.steps) t.push_back(s.time_s);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 10;
  const exec::ElementType types[] = {exec::ElementType::kFp32, exec::ElementType::kFp16,
                                     exec::ElementType::kBf16};
  std::printf("sum kernel (one core), G elements/s\n%-10s %14s %14s\n", "type", "64K (cache)",
              "16M (memory)");
  for (auto type : types)
    std::printf("%-10s %14.2f %14.2f\n", exec::element_name(type), sum_rate(type, 1 << 16) / 1e9,
                sum_rate(type, 1 << 24) / 1e9);

  std::string root = SCALEOUT_SOURCE_DIR;
  core::Plan plan = core::load_plan(root + "/experiments/quickstart.yaml");
  plan.workload.parameters = 16e6;
  plan.workload.layers.clear();
  plan.training.workers = 4;
  plan.training.steps = steps;
  plan.training.overlap = false;
  exec::ExecOptions options;
  options.compute_scale = 0;
  options.baselines = false;
  std::printf(
      "\nring, 4 ranks on loopback, 16M elements, median of %d steps\n%-10s %12s %10s %7s\n", steps,
      "precision", "step (ms)", "vs fp32", "#wrong");
  double fp32 = 0;
  for (const char* precision : {"fp32", "fp16", "bf16"}) {
    plan.training.gradient_precision = precision;
    plan.training.gradient_bytes_per_element = std::string(precision) == "fp32" ? 4 : 2;
    core::RunResult r = exec::run_local(plan, options);
    double step = median_step(r);
    if (fp32 == 0) fp32 = step;
    std::printf("%-10s %12.2f %10.2f %7ld\n", precision, step * 1e3, step / fp32, r.wrong);
    std::fflush(stdout);
  }
  return 0;
}
