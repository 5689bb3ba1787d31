// Model-parallel plans at the sizes people train them: the closed form and SimGrid on GPT-3 175B
// (tensor 8 x pipeline 16 x data 8 on 1,024 A100s, global batch 1,536, micro-batch 1) and
// SimGrid on the 1T model of Narayanan et al. 2021 (tensor 8 x pipeline 64 x data 6 on 3,072),
// beside the targets. The DGX nodes' 8 NICs are simulated as 8 rails (every transfer between
// nodes striped over them) and, side by side, folded into one NIC of their summed bandwidth,
// which gives the same step (striping spreads evenly) at a fraction of the simulator's time and
// memory (sim/rail_bundle.hpp: what the simulator itself does from 8,192 stand-in transfers, the
// 1T model's size); the 1T model runs both ways too. The closed form runs in this process (the mean
// of repeated predictions); each simulation in its own process (wall time, CPU time and peak memory
// from wait4()).
//
// Then Llama 3 405B on 16,384 H100s split as the paper splits it (interleaved, 8 chunks a stage,
// the embedding and the loss counted as layers; experiments/llama3-405b), closed form and SimGrid.
//
//   build/bench/bench_model_parallel [skip_big]   (any argument leaves the 1T and Llama 3 out)
#include <chrono>
#include <cstdio>

#include "analytic/analytic.hpp"
#include "bench/measure_child.hpp"
#include "core/plan/plan_loader.hpp"

using namespace scaleout;

namespace {

double closed_form_ms(const core::Plan& plan, core::RunResult& out) {
  const int runs = 20;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) out = sim::predict_analytic(plan);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
         runs;
}

void row(const char* what, double wall_s, double cpu_s, double peak_mb, double step_s,
         const char* target) {
  std::printf("%-34s %9.4f %9.4f %9.0f %12.3f  %s\n", what, wall_s, cpu_s, peak_mb, step_s, target);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("allocator: %s\n", bench::allocator_name());
  std::printf("%-34s %9s %9s %9s %12s  %s\n", "run", "wall s", "cpu s", "peak MB", "step s",
              "target");
  core::Plan gpt3 =
      core::load_plan(SCALEOUT_SOURCE_DIR "/experiments/model-parallel/gpt3-175b.yaml");
  core::RunResult closed;
  double ms = closed_form_ms(gpt3, closed);
  row("175B, 1,024 GPUs, closed form", ms / 1e3, ms / 1e3, 0, closed.step_time_s, "< 0.05 s");
  bench::Measured sim = bench::measure_simulation(gpt3, "fast", sim::kDefaultMaxEvents, 0, true);
  row("175B, 1,024 GPUs, SimGrid, 8 rails", sim.wall_s, sim.cpu_s, sim.peak_mb,
      sim.result.step_time_s, "< 60 s, 2 GB");
  bench::Measured one_nic = bench::measure_simulation(sim::with_rails_bundled(gpt3), "fast");
  row("175B, 1,024 GPUs, SimGrid, 1 NIC", one_nic.wall_s, one_nic.cpu_s, one_nic.peak_mb,
      one_nic.result.step_time_s, "< 60 s, 2 GB");
  std::printf("  SimGrid / closed form: %.0fx the time; step %.4f%% apart\n",
              sim.wall_s / (ms / 1e3), 100 * (sim.result.step_time_s / closed.step_time_s - 1));
  if (argc > 1) return 0;
  core::Plan one_t = core::load_plan(SCALEOUT_SOURCE_DIR "/experiments/megatron21/gpt-1008b.yaml");
  core::RunResult closed_1t;
  double ms_1t = closed_form_ms(one_t, closed_1t);
  row("1T, 3,072 GPUs, closed form", ms_1t / 1e3, ms_1t / 1e3, 0, closed_1t.step_time_s, "");
  bench::Measured big = bench::measure_simulation(sim::with_rails_bundled(one_t), "fast", 1e8);
  row("1T, 3,072 GPUs, SimGrid, 1 NIC", big.wall_s, big.cpu_s, big.peak_mb, big.result.step_time_s,
      "< 300 s");
  bench::Measured railed = bench::measure_simulation(one_t, "fast", 1e8, 0, true);
  row("1T, 3,072 GPUs, SimGrid, 8 rails", railed.wall_s, railed.cpu_s, railed.peak_mb,
      railed.result.step_time_s, "< 300 s");
  std::printf("  step %.4f%% apart from the closed form\n",
              100 * (big.result.step_time_s / closed_1t.step_time_s - 1));
  core::Plan llama =
      core::load_plan(SCALEOUT_SOURCE_DIR "/experiments/llama3-405b/llama3-405b-8k-16384.yaml");
  core::RunResult closed_llama;
  double ms_llama = closed_form_ms(llama, closed_llama);
  row("Llama 3 405B, 16,384, closed form", ms_llama / 1e3, ms_llama / 1e3, 0,
      closed_llama.step_time_s, "< 0.05 s");
  // 8.1 million messages: over the default cap, which a user raises the same way.
  bench::Measured l3 = bench::measure_simulation(llama, "fast", 1e7);
  row("Llama 3 405B, 16,384, SimGrid", l3.wall_s, l3.cpu_s, l3.peak_mb, l3.result.step_time_s,
      "< 300 s");
  std::printf("  step %.4f%% apart from the closed form\n",
              100 * (l3.result.step_time_s / closed_llama.step_time_s - 1));
  return 0;
}
